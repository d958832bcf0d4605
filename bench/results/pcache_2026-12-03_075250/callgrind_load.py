import socket, sys, os, subprocess, time
port=int(sys.argv[1]); mode=sys.argv[2]
def enc(*a):
    o=[b"*%d\r\n"%len(a)]
    for x in a:
        x=x if isinstance(x,bytes) else str(x).encode(); o+= [b"$%d\r\n"%len(x),x,b"\r\n"]
    return b"".join(o)
s=socket.create_connection(("127.0.0.1",port))
def rt(req, n=1):
    s.sendall(req); got=b""
    while got.count(b"\r\n")<n: got+=s.recv(1<<20)
    return got
keys=[os.urandom(16).hex().encode() for _ in range(4000)]
if mode=="setup":
    rt(enc("PCACHE.CREATE","ns"))
    prev=None
    for i,k in enumerate(keys):
        a=["PCACHE.PUT","ns",k,b"x"*64]+(["PARENT",prev] if prev else [])
        rt(enc(*a)); prev=k
    # random keys: regenerate deterministically instead
    open("keys","wb").write(b"\n".join(keys))
    for k in keys: rt(enc("SET",b"ns:"+k,b"x"*64))
else:
    keys=open("keys","rb").read().split(b"\n")
    req=enc("PCACHE.LONGEST","ns",*keys) if mode=="longest" else b"".join(enc("EXISTS",b"ns:"+k) for k in keys)
    n=1 if mode=="longest" else 4000
    for _ in range(int(sys.argv[3])):
        r=rt(req,n)
    print(r[:20])

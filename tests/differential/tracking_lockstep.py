"""Random lockstep of client-side caching: the invalidations six tracking clients receive
(default, OPTIN, OPTOUT, NOLOOP, BCAST with prefixes, BCAST NOLOOP) while they and a RESP2
writer run random reads, writes, CLIENT CACHING, FLUSHDB, RENAME, COPY, GETDEL and MULTI
blocks; HotKV (start it with --threads 2) against Redis 8.8. After every step the writer
changes a marker key that every client tracks, so each client's messages of that step are
known exactly; they are compared per step, each as a sorted list (across workers messages
of one step may arrive in another order), together with the step's reply.

Usage: tracking_lockstep.py redis88_port hotkv_port first_seed end_seed"""
import os
import random
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from conftest import RawConnection
def conn(port, resp3):
    c = RawConnection(socket.create_connection(("127.0.0.1", port), timeout=3))
    c.pushes=[]
    if resp3: c.command("HELLO","3")
    return c
def cmd(c,*a):
    c.send_command(*a)
    while True:
        r=c.read_reply()
        if isinstance(r,tuple) and r[0]=="push": c.pushes.append(r[1]); continue
        return r
def run(port, seed, steps=400):
    rnd=random.Random(seed)
    w=conn(port,False); cmd(w,"FLUSHALL")
    modes=[[],["OPTIN"],["OPTOUT"],["NOLOOP"],["BCAST","PREFIX","a","PREFIX","b"],["BCAST","NOLOOP"]]
    ts=[conn(port,True) for _ in modes]
    for t,m in zip(ts,modes): cmd(t,"CLIENT","TRACKING","ON",*m)
    keys=["a1","a2","b1","c1","c2","d"]
    log=[]
    mk=0
    for s in range(steps):
        who=rnd.randrange(len(ts)+1)
        c = w if who==len(ts) else ts[who]
        op=rnd.random()
        k=rnd.choice(keys)
        if op<0.3: a=("GET",k)
        elif op<0.4: a=("MGET",k,rnd.choice(keys))
        elif op<0.6: a=("SET",k,str(s))
        elif op<0.65: a=("DEL",k)
        elif op<0.7: a=("INCR",k)
        elif op<0.75: a=("CACHING+GET",k)
        elif op<0.78: a=("FLUSHDB",)
        elif op<0.82: a=("RENAME",k,rnd.choice(keys))
        elif op<0.86: a=("EXISTS",k)
        elif op<0.9: a=("MSET",k,"1",rnd.choice(keys),"2")
        elif op<0.93: a=("MULTI+",k,rnd.choice(keys))
        elif op<0.95: a=("GETDEL",k)
        elif op<0.97: a=("COPY",k,rnd.choice(keys),"REPLACE")
        else: a=("STRLEN",k)
        if a[0]=="MULTI+":
            r=(cmd(c,"MULTI"),cmd(c,"GET",a[1]),cmd(c,"SET",a[2],"m"),cmd(c,"MGET",a[1],a[2]),cmd(c,"EXEC"))
        elif a[0]=="CACHING+GET":
            r=(cmd(c,"CLIENT","CACHING",rnd.choice(["YES","NO"])), cmd(c,"GET",k))
        else:
            r=cmd(c,*a)
        # sync: every tracker reads marker via its mode, writer sets it
        mk+=1; m="azz%d"%mk
        for t,mo in zip(ts,modes):
            if "OPTIN" in mo: cmd(t,"CLIENT","CACHING","YES")
            if "OPTOUT" in mo: pass
            if "BCAST" not in mo: cmd(t,"GET",m)
        cmd(w,"SET",m,"1")
        step=[]
        for i,t in enumerate(ts):
            got=[]
            while True:
                while not t.pushes:
                    x=t.read_reply(); assert isinstance(x,tuple), x; t.pushes.append(x[1])
                p=t.pushes.pop(0)
                if p[0]==b"invalidate" and p[1] is not None and m.encode() in p[1]:
                    rest=[k for k in p[1] if k!=m.encode()]
                    if rest: got.append(("inv",tuple(sorted(rest))))
                    break
                got.append(("inv", None if p[1] is None else tuple(sorted(p[1]))) if p[0]==b"invalidate" else tuple(p))
            step.append(sorted(got, key=repr))
        log.append((a, repr(r)[:40], step))
    return log
failed = False
for seed in range(int(sys.argv[3]), int(sys.argv[4])):
    A=run(int(sys.argv[1]),seed); B=run(int(sys.argv[2]),seed)
    for i,(x,y) in enumerate(zip(A,B)):
        if x!=y:
            print("seed",seed,"step",i,"\n  redis:",x,"\n  hotkv:",y); failed = True; break
    else:
        print("seed",seed,"same")
sys.exit(1 if failed else 0)

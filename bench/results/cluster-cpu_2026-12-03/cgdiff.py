import subprocess,sys,re
def load(path,n):
    out=subprocess.run(["callgrind_annotate","--threshold=100",path],capture_output=True,text=True).stdout
    d={}
    for line in out.splitlines():
        m=re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+(.*)",line)
        if m and "PROGRAM TOTALS" not in line:
            fn=m.group(2).split("[")[0].strip()
            fn=re.sub(r"\(.*","",fn.split(":",1)[-1])
            d[fn]=d.get(fn,0)+int(m.group(1).replace(",",""))/n
    return d
a=load(sys.argv[1],int(sys.argv[3])); b=load(sys.argv[2],int(sys.argv[3]))
rows=sorted(set(a)|set(b),key=lambda f:-abs(b.get(f,0)-a.get(f,0)))
for f in rows[:int(sys.argv[4]) if len(sys.argv)>4 else 15]:
    print(f"{b.get(f,0)-a.get(f,0):+8.1f} {a.get(f,0):8.1f} {b.get(f,0):8.1f}  {f[:90]}")

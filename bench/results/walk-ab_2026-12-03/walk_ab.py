import redis, subprocess, sys, time, threading, socket, os
srv = sys.argv[1]; lg = "/work/wt/persist/build/release/tools/loadgen/hotkv-loadgen"
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
d = "/tmp/pw/p%d" % port; os.makedirs(d, exist_ok=True)
p = subprocess.Popen([srv, "--port", str(port), "--dir", d, "--bgsave-mode", "walk", "--save", ""], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
c = redis.Redis(port=port)
for _ in range(200):
    try: c.ping(); break
    except Exception: time.sleep(0.05)
buf = bytearray(); v = b"x" * 256
for i in range(500000):
    k = b"key:%d" % i
    buf += b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$256\r\n%s\r\n" % (len(k), k, v)
subprocess.run(["redis-cli", "-p", str(port), "--pipe"], input=bytes(buf), check=True, stdout=subprocess.DEVNULL)
stop = threading.Event(); worst = [0.0]; saves = [0]
def saver():
    cc = redis.Redis(port=port)
    while not stop.is_set():
        cc.bgsave(); saves[0] += 1
        while True:
            t0 = time.perf_counter(); ip = cc.info("persistence")["rdb_bgsave_in_progress"]; worst[0] = max(worst[0], time.perf_counter() - t0)
            if not ip: break
            time.sleep(0.005)
th = threading.Thread(target=saver); th.start()
pr = [subprocess.Popen([lg, "--port", str(port), "--rate", "5000", "--duration", "10", "--warmup", "1", "--command", cmd, "--keyspace", "500000", "--connections", "25", "--json"], stdout=subprocess.PIPE, text=True) for cmd in ("get", "set")]
import json
for x in pr:
    j = json.loads(x.communicate()[0].strip().splitlines()[-1]); print(j["command"], "p99_us", (j.get("latency_us") or {}).get("p99"), "max_us", (j.get("latency_us") or {}).get("max"), "achieved", j["achieved_rate"])
stop.set(); th.join()
print("saves", saves[0], "worst INFO round trip ms", round(worst[0] * 1000, 1))
p.terminate(); p.wait()

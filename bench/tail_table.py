"""One line per run of bench/tail_ab.sh output (stdin): p50/p99/p99.9/max µs, S = sustained."""
import sys,json
for l in sys.stdin:
  p=l.strip().split('|')
  try: j=json.loads(p[-1])
  except Exception: print(l.strip()); continue
  L=j['latency_us'] or {}
  print("%-5s %-22s %6s %4s %-7s %-20s %s ach %7.0f %s p50 %6.0f p99 %7.0f p99.9 %7.0f max %7.0f lag99 %6.0f srvcpu%% %3.0f"%(p[0],p[1][:22],p[2],p[3],p[4],p[5],p[6],j['achieved_rate'],'S' if j['sustained'] else 'N',L.get('p50',0),L.get('p99',0),L.get('p99_9',0),L.get('max',0),j['send_lag_us']['p99'],int(p[7].split('=')[1])/(j['duration_s']+j['warmup_s'])))


set terminal pngcairo size 1500,600 noenhanced
set output 'latency_vs_rate.png'
set multiplot layout 1,3 title "Open-loop GET latency vs achieved rate — 2026-12-03_135232"
set logscale xy
set xlabel 'achieved rate (thousand GET/s, log scale)'
set ylabel 'latency (us, log scale)'
set grid
set bmargin 9
unset key
set title 'p50 GET latency (sustained steps only)'
plot 'latency.dat' index 0 using ($1/1000):2 with linespoints lw 2 title 'HotKV --threads 1, 50 conns', 'latency.dat' index 1 using ($1/1000):2 with linespoints lw 2 title 'HotKV --threads 1, 500 conns', 'latency.dat' index 2 using ($1/1000):2 with linespoints lw 2 title 'HotKV default threads (1), 50 conns', 'latency.dat' index 3 using ($1/1000):2 with linespoints lw 2 title 'HotKV default threads (1), 500 conns', 'latency.dat' index 4 using ($1/1000):2 with linespoints lw 2 title 'Redis 8.8.0, 50 conns', 'latency.dat' index 5 using ($1/1000):2 with linespoints lw 2 title 'Redis 8.8.0, 500 conns', 'latency.dat' index 6 using ($1/1000):2 with linespoints lw 2 title 'Redis 7.0.15, 50 conns', 'latency.dat' index 7 using ($1/1000):2 with linespoints lw 2 title 'Redis 7.0.15, 500 conns'
set key below font ',9'
set title 'p99 GET latency (sustained steps only)'
plot 'latency.dat' index 0 using ($1/1000):3 with linespoints lw 2 title 'HotKV --threads 1, 50 conns', 'latency.dat' index 1 using ($1/1000):3 with linespoints lw 2 title 'HotKV --threads 1, 500 conns', 'latency.dat' index 2 using ($1/1000):3 with linespoints lw 2 title 'HotKV default threads (1), 50 conns', 'latency.dat' index 3 using ($1/1000):3 with linespoints lw 2 title 'HotKV default threads (1), 500 conns', 'latency.dat' index 4 using ($1/1000):3 with linespoints lw 2 title 'Redis 8.8.0, 50 conns', 'latency.dat' index 5 using ($1/1000):3 with linespoints lw 2 title 'Redis 8.8.0, 500 conns', 'latency.dat' index 6 using ($1/1000):3 with linespoints lw 2 title 'Redis 7.0.15, 50 conns', 'latency.dat' index 7 using ($1/1000):3 with linespoints lw 2 title 'Redis 7.0.15, 500 conns'
unset key
set title 'p99.9 GET latency (sustained steps only)'
plot 'latency.dat' index 0 using ($1/1000):4 with linespoints lw 2 title 'HotKV --threads 1, 50 conns', 'latency.dat' index 1 using ($1/1000):4 with linespoints lw 2 title 'HotKV --threads 1, 500 conns', 'latency.dat' index 2 using ($1/1000):4 with linespoints lw 2 title 'HotKV default threads (1), 50 conns', 'latency.dat' index 3 using ($1/1000):4 with linespoints lw 2 title 'HotKV default threads (1), 500 conns', 'latency.dat' index 4 using ($1/1000):4 with linespoints lw 2 title 'Redis 8.8.0, 50 conns', 'latency.dat' index 5 using ($1/1000):4 with linespoints lw 2 title 'Redis 8.8.0, 500 conns', 'latency.dat' index 6 using ($1/1000):4 with linespoints lw 2 title 'Redis 7.0.15, 50 conns', 'latency.dat' index 7 using ($1/1000):4 with linespoints lw 2 title 'Redis 7.0.15, 500 conns'
unset multiplot

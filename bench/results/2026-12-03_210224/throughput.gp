
set terminal pngcairo size 1200,560 noenhanced
set output 'throughput.png'
set title "Throughput, redis-benchmark -P 30 -c 50 (generator-bound where noted in results.md) — 2026-12-03_210224"
set datafile missing '?'
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.8 border -1
set ylabel 'requests/s (log scale)'
set logscale y
set grid ytics mytics
set key inside top left horizontal
set xtics font ',10'
set xlabel '* = not measured on every server (see results.md)   whiskers: min-max   MGET/MSET: 10 keys per request'
plot 'throughput.dat' using 2:3:4:xtic(1) title 'HotKV --threads 1', 'throughput.dat' using 5:6:7 title 'HotKV default threads (1)', 'throughput.dat' using 8:9:10 title 'Redis 8.8.0', 'throughput.dat' using 11:12:13 title 'Redis 7.0.15'


set terminal pngcairo size 1200,560 noenhanced
set output 'cpu_ns_per_op.png'
set title "Server CPU per request (lower is better) — 2026-12-03_210224"
set datafile missing '?'
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.8 border -1
set ylabel 'server CPU ns per request (log scale)'
set logscale y
set grid ytics mytics
set key inside top left horizontal
set xtics font ',10'
set xlabel '* = not measured on every server (see results.md)   whiskers: min-max   MGET/MSET: 10 keys per request'
plot 'cpu_ns_per_op.dat' using 2:3:4:xtic(1) title 'HotKV --threads 1', 'cpu_ns_per_op.dat' using 5:6:7 title 'HotKV default threads (1)', 'cpu_ns_per_op.dat' using 8:9:10 title 'Redis 8.8.0', 'cpu_ns_per_op.dat' using 11:12:13 title 'Redis 7.0.15'

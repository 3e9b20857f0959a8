# SPDX-License-Identifier: GPL-2.0
# The "make bench" chart: gnuplot -e "dir='build/bench'" chart.gp
# Reads dir/write.dat and dir/goals.dat (harness/bench/report.py, which
# also writes the goal labels), writes dir/bench.png.
if (!exists("dir")) dir = "."
set terminal pngcairo size 1400,560 font ",10" noenhanced
set output dir."/bench.png"
set multiplot layout 1,2 title "user_events on Linux 6.1 (QEMU TCG, instruction-counted where possible: ratios, not hardware numbers)"

set title "Enabled write cost vs payload"
set logscale x 2
set xlabel "payload bytes (trace_marker_raw: + 4 B id; it keeps at most 1 KiB)"
set ylabel "instructions per write (ns when not instruction-counted)"
set key top left
set grid ytics
set yrange [0:*]
set xtics (4, 32, 256, 2048)
plot dir."/write.dat" using 1:2 with linespoints lw 2 pt 7 title "user event writev(), ftrace", \
     ""               using 1:5 with linespoints lw 2 pt 11 title "user event write(), ftrace", \
     ""               using 1:4 with linespoints lw 2 pt 9 title "user event writev(), perf", \
     ""               using 1:3 with linespoints lw 2 pt 5 title "trace_marker_raw"

unset logscale x
unset xtics
set xtics nomirror rotate by 0
set title "Goals: measured / allowed (<= 1 is PASS; scaling goals inverted)"
set xlabel ""
set ylabel "measured / goal limit"
set bmargin 5
set style fill solid 0.8 border -1
set boxwidth 0.6
set yrange [0:*]
set key off
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead lw 2 dt 2 lc rgb "black"
# Bars stop at 3 (a goal missed 40 times would flatten the others); the
# labels give the true value
clip(q) = q > 3 ? 3 : q
plot dir."/goals.dat" using 0:(clip($2/$3)):($4 > 0.5 ? 0x2e8b57 : 0xcd3333):xtic(1) with boxes lc rgb variable, \
     ""               using 0:(clip($2/$3)):(sprintf("%.2f", $2/$3)) with labels offset 0,0.8
unset multiplot

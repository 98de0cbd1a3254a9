# A100 training step from its PyTorch profiler trace
# Written by roofline 0.3.0. Edit freely, then redraw with:  gnuplot torch-a100-training.gp
# Data beside it: torch-a100-training.roofs.dat (ceilings, one gnuplot 'index' block per
# line, ridge points in the last block) and torch-a100-training.kernels.dat (kernels).
# Ceilings: datasheet solid, measured dashed, analytic dotted. Kernels:
# measured filled, analytic open.

# The image format follows the output name: gnuplot -e "outfile='x.pdf'" torch-a100-training.gp
if (!exists("outfile")) outfile = "torch-a100-training.svg"
ext = outfile[strlen(outfile)-2:]
if (ext eq "pdf") {
    set terminal pdfcairo size 7.500in,5.000in font "Helvetica,14" fontscale 0.392 linewidth 1
    set pointsize 1.0
    pt_scale = 1.0
} else {
    if (ext eq "png") {
        set terminal pngcairo size 1920,1280 font "Helvetica,14" fontscale 1.5 linewidth 2 background rgb "white"
        set pointsize 1.0
        pt_scale = 1.0
    } else {
        set terminal svg size 960,640 dynamic font "Helvetica,14" background rgb "white"
        set pointsize 0.5
        pt_scale = 0.5
    }
}
set output outfile
# Points of labels (the key drawn in the margin) are not scaled by
# 'set pointsize'; pt_scale does it for them.
set encoding utf8

# Fixed margins: roofline placed the labels for this geometry.
set lmargin at screen 0.1354
set rmargin at screen 0.7490
set bmargin at screen 0.1047
set tmargin at screen 0.9250

set logscale xy 10
set xrange [0.01:1000]
set yrange [1e+07:1e+15]
set xlabel "Arithmetic intensity (FLOP/byte)" offset 0,0.4
# The y label sits at a fixed place: the margins are fixed too.
set label 999 "Performance (FLOP/s)" at screen 0.018, graph 0.5 center rotate by 90
set xtics ("0.01" 1e-02, "0.1" 1e-01, "1" 1e+00, "10" 1e+01, "100" 1e+02, "1k" 1e+03)
set format y "%.0s %cFLOP/s"
set mxtics 10
set mytics 10
set grid xtics ytics lw 1 lc rgb "#e4e4e4" dt 1
set border 3 lw 1.2
set tics nomirror out scale 0.7
set title "A100 training step from its PyTorch profiler trace" noenhanced font ",16"
set key off   # drawn in the right margin, below

# Line styles: one per ceiling.
set style line 1 lc rgb "#0072B2" lw 2 dt 1   # FP64 CUDA cores: 9.7 TFLOP/s
set style line 2 lc rgb "#D55E00" lw 2 dt 1   # FP32 CUDA cores: 19.5 TFLOP/s
set style line 3 lc rgb "#56B4E9" lw 2 dt 1   # TF32 Tensor Core: 156 TFLOP/s
set style line 4 lc rgb "#8C6D00" lw 2 dt 1   # FP16/BF16 Tensor Core: 312 TFLOP/s
set style line 5 lc rgb "#202020" lw 2.2 dt 1   # HBM2: 1.555 TB/s
set style line 6 lc rgb "#6A3D9A" lw 2.2 dt (2,4)   # L2: 7.219 TB/s (analytic)
set style line 7 lc rgb "#00796B" lw 2.2 dt (2,4)   # L1/shared: 19.49 TB/s (analytic)
set style line 90 lc rgb "#555555" pt 12 ps 1.1 lw 1.2   # ridge points
set style line 91 lc rgb "#111111" pt 7 ps 1.3   # measured kernels
set style line 92 lc rgb "#111111" pt 6 ps 1.3 lw 1.5   # analytic kernels


# Labels: ceilings, ridge points, kernels.
set label 1 "FP64 CUDA cores: 9.7 TFLOP/s" at screen 0.75836, first 9.7e+12 left tc rgb "#0072B2" font ",12.5" noenhanced front
set label 2 "FP32 CUDA cores: 19.5 TFLOP/s" at screen 0.75836, first 1.95e+13 left tc rgb "#D55E00" font ",12.5" noenhanced front
set label 3 "TF32 Tensor Core: 156 TFLOP/s" at screen 0.75836, first 1.56e+14 left tc rgb "#56B4E9" font ",12.5" noenhanced front
set label 4 "FP16/BF16 Tensor Core: 312 TFLOP/s" at screen 0.75836, first 3.12e+14 left tc rgb "#8C6D00" font ",12.5" noenhanced front
set label 5 "HBM2: 1.555 TB/s" at 0.472603,1.15467e+12 left rotate by 29.12 tc rgb "#202020" font ",12.5" noenhanced front
set label 6 "L2: 7.219 TB/s (analytic)" at 0.012559,1.4245e+11 left rotate by 29.12 tc rgb "#6A3D9A" font ",12.5" noenhanced front
set label 7 "L1/shared: 19.49 TB/s (analytic)" at 0.0120698,3.69648e+11 left rotate by 29.12 tc rgb "#00796B" font ",12.5" noenhanced front
set label 8 "bmm: cutlass_80_tensorop... x3" at 9.67337,5.32306e+11 left font ",11.5" noenhanced front
set arrow from 11.0386,8.10799e+12 to 9.67337,5.32306e+11 nohead lw 0.6 lc rgb "#888888" back
set label 9 "1" at 8.67619,3.80046e+13 right font ",11.5" noenhanced front
set arrow from 11.0386,1.10828e+13 to 8.67619,3.80046e+13 nohead lw 0.6 lc rgb "#888888" back
set label 10 "2" at 0.104965,5.18301e+10 left font ",11.5" noenhanced front
set label 11 "3" at 0.0662856,3.74917e+10 right font ",11.5" noenhanced front
set label 12 "4" at 0.0578656,1.76845e+11 right font ",11.5" noenhanced front
set arrow from 0.0833333,1.12372e+11 to 0.0578656,1.76845e+11 nohead lw 0.6 lc rgb "#888888" back
set label 13 "5" at 0.231826,7.04626e+11 right font ",11.5" noenhanced front
set arrow from 0.333333,4.4837e+11 to 0.231826,7.04626e+11 nohead lw 0.6 lc rgb "#888888" back
set label 14 "6" at 298.265,4.28963e+13 left font ",11.5" noenhanced front
set arrow from 164.666,4.28963e+13 to 298.265,4.28963e+13 nohead lw 0.6 lc rgb "#888888" back
set label 15 "7" at 0.200739,1.57538e+11 right font ",11.5" noenhanced front
set label 16 "8" at 152.485,1.00295e+14 right font ",11.5" noenhanced front
set label 17 "native_layer_norm: vector... x2" at 1.02267,1.67241e+11 left font ",11.5" noenhanced front
set label 18 "9" at 13.4378,5.09535e+12 left font ",11.5" noenhanced front
set arrow from 14.3311,1.23168e+13 to 13.4378,5.09535e+12 nohead lw 0.6 lc rgb "#888888" back
set label 19 "mul: vectorized_elementwi... x3" at 0.0973742,6.45517e+07 left font ",11.5" noenhanced front
set label "1  bmm: cutlass_80_tensorop... (at 11 FLOP/B)" at screen 0.38333,0.51064 left font ",11.5" noenhanced front   # number key
set label "2  add: elementwise_kernel<...> x22" at screen 0.38333,0.48818 left font ",11.5" noenhanced front   # number key
set label "3  mul: vectorized_elementwi... x2" at screen 0.38333,0.46572 left font ",11.5" noenhanced front   # number key
set label "4  add: vectorized_elementwi... x8" at screen 0.38333,0.44326 left font ",11.5" noenhanced front   # number key
set label "5  tanh_backward: elementwis... x4" at screen 0.38333,0.42080 left font ",11.5" noenhanced front   # number key
set label "6  addmm: cutlass_80_tensoro..." at screen 0.38333,0.39834 left font ",11.5" noenhanced front   # number key
set label "7  tanh: elementwise_kernel... x3" at screen 0.38333,0.37588 left font ",11.5" noenhanced front   # number key
set label "8  mm: cutlass_80_tensorop... x2" at screen 0.38333,0.35342 left font ",11.5" noenhanced front   # number key
set label "9  mm: ampere_sgemm_128x64_nn x3 (at 14.3 FLOP/B)" at screen 0.38333,0.33096 left font ",11.5" noenhanced front   # number key
set label "" at screen 0.76878, screen 0.22822 point pt 12 ps 1.1*pt_scale lc rgb "#555555" front   # key
set label "ridge point (FLOP/byte)" at screen 0.78544, screen 0.22822 left font ",11.5" noenhanced front   # key
set arrow from screen 0.75836, screen 0.20576 to screen 0.77919, screen 0.20576 nohead lc rgb "#333333" lw 2 dt 1 front   # key
set label "datasheet ceiling" at screen 0.78544, screen 0.20576 left font ",11.5" noenhanced front   # key
set arrow from screen 0.75836, screen 0.18330 to screen 0.77919, screen 0.18330 nohead lc rgb "#343434" lw 2 dt (2,4) front   # key
set label "analytic ceiling" at screen 0.78544, screen 0.18330 left font ",11.5" noenhanced front   # key
set label "" at screen 0.76878, screen 0.16084 point pt 6 ps 1.3*pt_scale lc rgb "#111111" front   # key
set label "kernel, computed FLOPs" at screen 0.78544, screen 0.16084 left font ",11.5" noenhanced front   # key
set label "area: share of GPU time" at screen 0.78544, screen 0.13838 left font ",11.5" noenhanced front   # key
set label "x3: 3 groups on one spot" at screen 0.78544, screen 0.11592 left font ",11.5" noenhanced front   # key


plot \
  "torch-a100-training.roofs.dat" index 0 using 1:2 with lines ls 1 notitle, \
  "torch-a100-training.roofs.dat" index 1 using 1:2 with lines ls 2 notitle, \
  "torch-a100-training.roofs.dat" index 2 using 1:2 with lines ls 3 notitle, \
  "torch-a100-training.roofs.dat" index 3 using 1:2 with lines ls 4 notitle, \
  "torch-a100-training.roofs.dat" index 4 using 1:2 with lines ls 5 notitle, \
  "torch-a100-training.roofs.dat" index 5 using 1:2 with lines ls 6 notitle, \
  "torch-a100-training.roofs.dat" index 6 using 1:2 with lines ls 7 notitle, \
  "torch-a100-training.roofs.dat" index 7 using 1:2 with points ls 90 title "ridge point (FLOP/byte)", \
  NaN with lines lc rgb "#333333" lw 2 dt 1 title "datasheet ceiling", \
  NaN with lines lc rgb "#333333" lw 2 dt (2,4) title "analytic ceiling", \
  "torch-a100-training.kernels.dat" using 1:(strcol(3) ne "measured" ? $2 : NaN):($4*1.3) with points ls 92 ps variable title "kernel, computed FLOPs", \
  NaN with dots lc rgb "white" title "area: share of GPU time", \
  NaN with dots lc rgb "white" title "x3: 3 groups on one spot", \
  NaN notitle


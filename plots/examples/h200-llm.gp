# NVIDIA H200 SXM 141GB: roofline (datasheet and analytic ceilings)
# Written by roofline 0.3.0. Edit freely, then redraw with:  gnuplot h200-llm.gp
# Data beside it: h200-llm.roofs.dat (ceilings, one gnuplot 'index' block per
# line, ridge points in the last block) and h200-llm.kernels.dat (kernels).
# Ceilings: datasheet solid, measured dashed, analytic dotted. Kernels:
# measured filled, analytic open.

# The image format follows the output name: gnuplot -e "outfile='x.pdf'" h200-llm.gp
if (!exists("outfile")) outfile = "h200-llm.png"
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
set rmargin at screen 0.7378
set bmargin at screen 0.1047
set tmargin at screen 0.9250

set logscale xy 10
set xrange [0.01:10000]
set yrange [1e+10:1e+16]
set xlabel "Arithmetic intensity (FLOP/byte)" offset 0,0.4
# The y label sits at a fixed place: the margins are fixed too.
set label 999 "Performance (FLOP/s)" at screen 0.018, graph 0.5 center rotate by 90
set xtics ("0.01" 1e-02, "0.1" 1e-01, "1" 1e+00, "10" 1e+01, "100" 1e+02, "1k" 1e+03, "10k" 1e+04)
set format y "%.0s %cFLOP/s"
set mxtics 10
set mytics 10
set grid xtics ytics lw 1 lc rgb "#e4e4e4" dt 1
set border 3 lw 1.2
set tics nomirror out scale 0.7
set title "NVIDIA H200 SXM 141GB: roofline (datasheet and analytic ceilings)" noenhanced font ",16"
set key off   # drawn in the right margin, below

# Line styles: one per ceiling.
set style line 1 lc rgb "#0072B2" lw 2 dt 1   # FP64 CUDA cores: 33.5 TFLOP/s
set style line 2 lc rgb "#D55E00" lw 2 dt 1   # FP32 CUDA cores: 66.9 TFLOP/s
set style line 3 lc rgb "#56B4E9" lw 2 dt 1   # TF32 Tensor Core: 494.7 TFLOP/s
set style line 4 lc rgb "#8C6D00" lw 2 dt 1   # FP16/BF16 Tensor Core: 989.4 TFLOP/s
set style line 5 lc rgb "#882255" lw 2 dt 1   # FP8 Tensor Core: 1978.9 TFLOP/s
set style line 6 lc rgb "#202020" lw 2.2 dt 1   # HBM3e: 4.8 TB/s
set style line 7 lc rgb "#00796B" lw 2.2 dt (2,4)   # L1/shared: 33.45 TB/s (analytic)
set style line 90 lc rgb "#555555" pt 12 ps 1.1 lw 1.2   # ridge points
set style line 91 lc rgb "#111111" pt 7 ps 1.3   # measured kernels
set style line 92 lc rgb "#111111" pt 6 ps 1.3 lw 1.5   # analytic kernels


# Labels: ceilings, ridge points, kernels.
set label 1 "FP64 CUDA cores: 33.5 TFLOP/s" at screen 0.74718, first 3.35e+13 left tc rgb "#0072B2" font ",12.5" noenhanced front
set label 2 "FP32 CUDA cores: 66.9 TFLOP/s" at screen 0.74718, first 6.69e+13 left tc rgb "#D55E00" font ",12.5" noenhanced front
set label 3 "TF32 Tensor Core: 494.7 TFLOP/s" at screen 0.74718, first 4.947e+14 left tc rgb "#56B4E9" font ",12.5" noenhanced front
set label 4 "FP16/BF16 Tensor Core: 989.4 TFLOP/s" at screen 0.74718, first 9.894e+14 left tc rgb "#8C6D00" font ",12.5" noenhanced front
set label 5 "FP8 Tensor Core: 1978.9 TFLOP/s" at screen 0.74718, first 1.9789e+15 left tc rgb "#882255" font ",12.5" noenhanced front
set label 6 "HBM3e: 4.8 TB/s" at 0.0127688,9.14203e+10 left rotate by 42.23 tc rgb "#202020" font ",12.5" noenhanced front
set label 7 "L1/shared: 33.45 TB/s (analytic)" at 0.0118147,5.8955e+11 left rotate by 42.23 tc rgb "#00796B" font ",12.5" noenhanced front
set label 8 "6.98" at 7.49773,2.31383e+13 left tc rgb "#555555" font ",10.5" noenhanced front   # ridge, FLOP/byte
set label 9 "13.9" at 14.9731,4.62074e+13 left tc rgb "#555555" font ",10.5" noenhanced front   # ridge, FLOP/byte
set label 10 "103" at 110.72,3.41686e+14 left tc rgb "#555555" font ",10.5" noenhanced front   # ridge, FLOP/byte
set label 11 "206" at 191.869,1.43247e+15 right tc rgb "#555555" font ",10.5" noenhanced front   # ridge, FLOP/byte
set label 12 "412" at 442.903,1.36681e+15 left tc rgb "#555555" font ",10.5" noenhanced front   # ridge, FLOP/byte
set label 13 "prefill GEMM 2048x4096..." at 233.508,6.46207e+14 left font ",11.5" noenhanced front
set label 14 "decode GEMV 1x4096x14336..." at 1.23949,4.79849e+12 left font ",11.5" noenhanced front
set label "" at screen 0.75759, screen 0.18330 point pt 12 ps 1.1*pt_scale lc rgb "#555555" front   # key
set label "ridge point (FLOP/byte)" at screen 0.77426, screen 0.18330 left font ",11.5" noenhanced front   # key
set arrow from screen 0.74718, screen 0.16084 to screen 0.76801, screen 0.16084 nohead lc rgb "#333333" lw 2 dt 1 front   # key
set label "datasheet ceiling" at screen 0.77426, screen 0.16084 left font ",11.5" noenhanced front   # key
set arrow from screen 0.74718, screen 0.13838 to screen 0.76801, screen 0.13838 nohead lc rgb "#343434" lw 2 dt (2,4) front   # key
set label "analytic ceiling" at screen 0.77426, screen 0.13838 left font ",11.5" noenhanced front   # key
set label "" at screen 0.75759, screen 0.11592 point pt 6 ps 1.3*pt_scale lc rgb "#111111" front   # key
set label "analytic kernel, no time" at screen 0.77426, screen 0.11592 left font ",11.5" noenhanced front   # key


plot \
  "h200-llm.roofs.dat" index 0 using 1:2 with lines ls 1 notitle, \
  "h200-llm.roofs.dat" index 1 using 1:2 with lines ls 2 notitle, \
  "h200-llm.roofs.dat" index 2 using 1:2 with lines ls 3 notitle, \
  "h200-llm.roofs.dat" index 3 using 1:2 with lines ls 4 notitle, \
  "h200-llm.roofs.dat" index 4 using 1:2 with lines ls 5 notitle, \
  "h200-llm.roofs.dat" index 5 using 1:2 with lines ls 6 notitle, \
  "h200-llm.roofs.dat" index 6 using 1:2 with lines ls 7 notitle, \
  "h200-llm.roofs.dat" index 7 using 1:2 with points ls 90 title "ridge point (FLOP/byte)", \
  NaN with lines lc rgb "#333333" lw 2 dt 1 title "datasheet ceiling", \
  NaN with lines lc rgb "#333333" lw 2 dt (2,4) title "analytic ceiling", \
  "h200-llm.kernels.dat" using 1:(strcol(3) ne "measured" ? $2 : NaN):($4*1.3) with points ls 92 ps variable title "analytic kernel, no time", \
  NaN notitle


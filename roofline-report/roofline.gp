# NVIDIA A100 SXM4 40GB: 830 kernel groups (datasheet and analytic ceilings)
# Written by roofline 0.3.0. Edit freely, then redraw with:  gnuplot roofline.gp
# Data beside it: roofline.roofs.dat (ceilings, one gnuplot 'index' block per
# line, ridge points in the last block) and roofline.kernels.dat (kernels).
# Ceilings: datasheet solid, measured dashed, analytic dotted. Kernels:
# measured filled, analytic open.

# The image format follows the output name: gnuplot -e "outfile='x.pdf'" roofline.gp
if (!exists("outfile")) outfile = "roofline.svg"
ext = outfile[strlen(outfile)-2:]
if (ext eq "pdf") {
    set terminal pdfcairo size 7.500in,5.000in font "Helvetica,14" fontscale 0.392 linewidth 1
    set pointsize 1.0
} else {
    if (ext eq "png") {
        set terminal pngcairo size 1920,1280 font "Helvetica,14" fontscale 1.5 linewidth 2 background rgb "white"
        set pointsize 1.0
    } else {
        set terminal svg size 960,640 dynamic font "Helvetica,14" background rgb "white"
        set pointsize 0.5
    }
}
set output outfile
set encoding utf8

# Fixed margins: roofline placed the labels for this geometry.
set lmargin at screen 0.1354
set rmargin at screen 0.9750
set bmargin at screen 0.1047
set tmargin at screen 0.9250

set logscale xy 10
set xrange [0.01:10000]
set yrange [1e+07:1e+15]
set xlabel "Arithmetic intensity (FLOP/byte)"
# The y label sits at a fixed place: the margins are fixed too.
set label 999 "Performance (FLOP/s)" at screen 0.018, graph 0.5 center rotate by 90
set format x "%g"
set format y "%.0s %cFLOP/s"
set mxtics 10
set mytics 10
set grid xtics ytics lw 1 lc rgb "#e4e4e4" dt 1
set border 3 lw 1.2
set tics nomirror out scale 0.7
set title "NVIDIA A100 SXM4 40GB: 830 kernel groups (datasheet and analytic ceilings)" noenhanced font ",16"
set key at graph 0.995,0.01 right bottom opaque box lw 0.5 lc rgb "#999999" samplen 2.5 spacing 1.0 font ",11.5"

# Line styles: one per ceiling.
set style line 1 lc rgb "#0072B2" lw 2 dt 1   # FP64 CUDA cores: 9.7 TFLOP/s
set style line 2 lc rgb "#D55E00" lw 2 dt 1   # FP32 CUDA cores: 19.5 TFLOP/s
set style line 3 lc rgb "#56B4E9" lw 2 dt 1   # TF32 Tensor Core: 156.0 TFLOP/s
set style line 4 lc rgb "#8C6D00" lw 2 dt 1   # FP16/BF16 Tensor Core: 312.0 TFLOP/s
set style line 5 lc rgb "#202020" lw 2.2 dt 1   # HBM2: 1.555 TB/s
set style line 6 lc rgb "#6A3D9A" lw 2.2 dt (2,4)   # L2: 7.219 TB/s (analytic)
set style line 7 lc rgb "#00796B" lw 2.2 dt (2,4)   # L1/shared: 19.49 TB/s (analytic)
set style line 90 lc rgb "#555555" pt 12 ps 1.1 lw 1.2   # ridge points
set style line 91 lc rgb "#111111" pt 7 ps 1.3   # measured kernels
set style line 92 lc rgb "#111111" pt 6 ps 1.3 lw 1.5   # analytic kernels


# Labels: ceilings, ridge points, kernels.
set label 1 "FP64 CUDA cores: 9.7 TFLOP/s" at 9022.67,1.36866e+13 right rotate by 0.00 tc rgb "#0072B2" font ",12.5" noenhanced front
set label 2 "FP32 CUDA cores: 19.5 TFLOP/s" at 9022.67,2.75143e+13 right rotate by 0.00 tc rgb "#D55E00" font ",12.5" noenhanced front
set label 3 "TF32 Tensor Core: 156.0 TFLOP/s" at 9022.67,2.20114e+14 right rotate by 0.00 tc rgb "#56B4E9" font ",12.5" noenhanced front
set label 4 "FP16/BF16 Tensor Core: 312.0 TFLOP/s" at 166.677,4.40229e+14 right rotate by 0.00 tc rgb "#8C6D00" font ",12.5" noenhanced front
set label 5 "HBM2: 1.555 TB/s" at 0.0130598,3.97331e+10 left rotate by 26.04 tc rgb "#202020" font ",12.5" noenhanced front
set label 6 "L1/shared: 19.49 TB/s (analytic)" at 0.0118035,4.50146e+11 left rotate by 26.04 tc rgb "#00796B" font ",12.5" noenhanced front
set label 7 "6.24" at 6.91363,3.81953e+12 left tc rgb "#555555" font ",10.5" noenhanced front   # ridge, FLOP/byte
set label 8 "12.5" at 13.4302,4.69829e+12 left tc rgb "#555555" font ",10.5" noenhanced front   # ridge, FLOP/byte
set label 9 "201" at 181.034,1.22855e+14 right tc rgb "#555555" font ",10.5" noenhanced front   # ridge, FLOP/byte
set label 10 "1" at 10.4328,4.52569e+12 left font ",11.5" noenhanced front
set label 11 "2" at 9.47122,6.29481e+12 right font ",11.5" noenhanced front
set label 12 "3" at 0.0969123,1.0093e+11 left font ",11.5" noenhanced front
set label 13 "4" at 0.0967511,3.74917e+10 left font ",11.5" noenhanced front
set label 14 "5" at 0.0718375,6.44423e+10 right font ",11.5" noenhanced front
set label 15 "6" at 0.386143,4.4837e+11 left font ",11.5" noenhanced front
set label 16 "7" at 190.146,4.28963e+13 left font ",11.5" noenhanced front
set label 17 "8" at 0.217115,5.16298e+11 right font ",11.5" noenhanced front
set label 18 "9" at 143.177,5.26864e+13 right font ",11.5" noenhanced front
set label 19 "native_layer_norm: void... x2" at 1.00311,1.67241e+11 left font ",11.5" noenhanced front
set label 20 "10" at 11.088,2.67984e+13 right font ",11.5" noenhanced front
set label 21 "mul: void at::native::vec... x3" at 0.0955264,6.45517e+07 left font ",11.5" noenhanced front
set label "L2: 7.219 TB/s (analytic)" at screen 0.65833,0.69814 left tc rgb "#6A3D9A" font ",11.5" noenhanced front   # key: a roof
set label "1  Kernel<...> x3" at screen 0.65833,0.67568 left font ",11.5" noenhanced front   # number key
set label "2  Kernel<...>" at screen 0.65833,0.65322 left font ",11.5" noenhanced front   # number key
set label "3  add: void at::native::ele... x22" at screen 0.65833,0.63076 left font ",11.5" noenhanced front   # number key
set label "4  mul: void at::native::vec... x2" at screen 0.65833,0.60830 left font ",11.5" noenhanced front   # number key
set label "5  add: void at::native::vec... x8" at screen 0.65833,0.58584 left font ",11.5" noenhanced front   # number key
set label "6  tanh_backward: void... x4" at screen 0.65833,0.56338 left font ",11.5" noenhanced front   # number key
set label "7  Kernel<...>" at screen 0.65833,0.54092 left font ",11.5" noenhanced front   # number key
set label "8  tanh: void at::native::el... x3" at screen 0.65833,0.51846 left font ",11.5" noenhanced front   # number key
set label "9  Kernel<...> x2" at screen 0.65833,0.49600 left font ",11.5" noenhanced front   # number key
set label "10  mm: ampere_sgemm_128x64_nn x3" at screen 0.65833,0.47354 left font ",11.5" noenhanced front   # number key


plot \
  "roofline.roofs.dat" index 0 using 1:2 with lines ls 1 notitle, \
  "roofline.roofs.dat" index 1 using 1:2 with lines ls 2 notitle, \
  "roofline.roofs.dat" index 2 using 1:2 with lines ls 3 notitle, \
  "roofline.roofs.dat" index 3 using 1:2 with lines ls 4 notitle, \
  "roofline.roofs.dat" index 4 using 1:2 with lines ls 5 notitle, \
  "roofline.roofs.dat" index 5 using 1:2 with lines ls 6 notitle, \
  "roofline.roofs.dat" index 6 using 1:2 with lines ls 7 notitle, \
  "roofline.roofs.dat" index 7 using 1:2 with points ls 90 title "ridge point (FLOP/byte)", \
  NaN with lines lc rgb "#333333" lw 2 dt 1 title "datasheet ceiling", \
  NaN with lines lc rgb "#333333" lw 2 dt (2,4) title "analytic ceiling", \
  "roofline.kernels.dat" using 1:(strcol(3) ne "measured" ? $2 : NaN):($4*1.3) with points ls 92 ps variable title "analytic kernel", \
  NaN notitle


//go:build !purego

#include "textflag.h"

// The dot products add the k-th product into lane k mod 8 of eight partial
// sums, Y0 holding lanes 0-3 and Y1 lanes 4-7, and combine the lanes in
// the fixed tree of package kernel's generic code, so that the result is
// bit for bit the generic one. A last group of 1 to 7 elements is loaded
// with masks (VPMASKMOVD, VMASKMOVPD/PS: the lanes past the end are
// neither read nor faulted on) and gathered into -0, so that its dead
// lanes add (+0)·(-0) = -0 and leave their partial sums exactly as they
// were.

// Register names shared by the index kernels in this file.
#define IDX SI // &idx[k]
#define VAL DI // &val[k]
#define W   DX // &w[0]
#define N   CX // elements left
#define LIM BX // min(len(w), 1<<31): j is in range iff uint32(j) < LIM
#define T   R8 // scratch
#define TM  R9 // address of tailmask<>

#define YLIM  Y15 // LIM in each 64-bit lane
#define XLIM  X15
#define YOK   Y14 // AND of every in-range mask seen (of the live lanes)
#define YNEGZ Y13 // -0 in every lane

// tailmask<> entry c (16 bytes at 16*c, c = 0..4) has its first c 32-bit
// lanes set.
DATA tailmask<>+0(SB)/8, $0
DATA tailmask<>+8(SB)/8, $0
DATA tailmask<>+16(SB)/8, $0x00000000ffffffff
DATA tailmask<>+24(SB)/8, $0
DATA tailmask<>+32(SB)/8, $-1
DATA tailmask<>+40(SB)/8, $0
DATA tailmask<>+48(SB)/8, $-1
DATA tailmask<>+56(SB)/8, $0x00000000ffffffff
DATA tailmask<>+64(SB)/8, $-1
DATA tailmask<>+72(SB)/8, $-1
GLOBL tailmask<>(SB), RODATA|NOPTR, $80

// CLAMP_N_LIM turns N = len(idx), T = len(val), LIM = len(w) into
// N = min(len(idx), len(val)) and LIM = min(len(w), 1<<31).
#define CLAMP_N_LIM \
	CMPQ    T, N         \
	CMOVQLT T, N         \
	MOVQ    $0x80000000, T \
	CMPQ    LIM, T       \
	CMOVQHI T, LIM

// GATHER_FMA handles the four indices at ioff(IDX) and values at
// voff(VAL): zero-extend the indices to 64 bits, mask = LIM > j (false
// for a negative j), gather the in-range w[j] into G (zeroed first, to
// break the dependency on its old value) and accumulate val*G into ACC.
// I, M and G are scratch registers.
#define GATHER_FMA(ioff, voff, I, M, G, ACC) \
	VPMOVZXDQ   ioff(IDX), I     \
	VPCMPGTQ    I, YLIM, M       \
	VPAND       M, YOK, YOK      \
	VXORPD      G, G, G          \
	VGATHERQPD  M, (W)(I*8), G   \
	VFMADD231PD voff(VAL), G, ACC

// TAIL_IDX loads the first N (1..3) indices at IDX under the masks of
// entry N of tailmask<>: XD (32-bit lanes) and YQ (the same lanes as
// 64-bit lanes); I (XI its low half) gets the indices zero-extended,
// dead lanes 0. M gets
// the gather mask (live and in range), and YOK loses the live lanes out of
// range. G is set to -0, the value the dead lanes keep. XD, YQ, I, M, G
// and Y8 are scratch; N is clobbered.
#define TAIL_IDX(XD, YQ, XI, I, M, G) \
	LEAQ       tailmask<>(SB), TM \
	SHLQ       $4, N              \
	VMOVDQU    (TM)(N*1), XD      \
	VPMOVSXDQ  XD, YQ             \
	VPMASKMOVD (IDX), XD, XI      \
	VPMOVZXDQ  XI, I              \
	VPCMPGTQ   I, YLIM, M         \
	VPAND      YQ, M, M           \
	VPANDN     YQ, M, Y8          \
	VPANDN     YOK, Y8, YOK       \
	VPCMPEQQ   YNEGZ, YNEGZ, YNEGZ \
	VPSLLQ     $63, YNEGZ, YNEGZ  \
	VMOVAPD    YNEGZ, G

// TAIL_FMA accumulates the 1..3 elements left at IDX and VAL into ACC.
#define TAIL_FMA(ACC) \
	TAIL_IDX(X10, Y11, X4, Y4, Y5, Y6)  \
	VGATHERQPD  Y5, (W)(Y4*8), Y6   \
	VMASKMOVPD  (VAL), Y11, Y12     \
	VFMADD231PD Y12, Y6, ACC

// SUM8 combines the lanes of Y0 (0-3) and Y1 (4-7) into X0:
// ((s0+s4) + (s2+s6)) + ((s1+s5) + (s3+s7)).
#define SUM8 \
	VADDPD       Y1, Y0, Y0 \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPD       X1, X0, X0 \
	VUNPCKHPD    X0, X0, X1 \
	VADDSD       X1, X0, X0

// func DotAVX2(idx []int32, val []float64, w []float64) (s float64, ok bool)
TEXT ·DotAVX2(SB), NOSPLIT, $0-81
	MOVQ idx_base+0(FP), IDX
	MOVQ idx_len+8(FP), N
	MOVQ val_base+24(FP), VAL
	MOVQ val_len+32(FP), T
	MOVQ w_base+48(FP), W
	MOVQ w_len+56(FP), LIM
	CLAMP_N_LIM

	VXORPD    Y0, Y0, Y0
	VXORPD    Y1, Y1, Y1
	VMOVQ     LIM, XLIM
	VPBROADCASTQ XLIM, YLIM
	VPCMPEQQ  YOK, YOK, YOK

	CMPQ N, $16
	JB   dot8

dot16:
	GATHER_FMA(0, 0, Y4, Y5, Y6, Y0)
	GATHER_FMA(16, 32, Y7, Y8, Y9, Y1)
	GATHER_FMA(32, 64, Y4, Y5, Y6, Y0)
	GATHER_FMA(48, 96, Y7, Y8, Y9, Y1)
	ADDQ $64, IDX
	ADDQ $128, VAL
	SUBQ $16, N
	CMPQ N, $16
	JAE  dot16

dot8:
	CMPQ N, $8
	JB   dottail
	GATHER_FMA(0, 0, Y4, Y5, Y6, Y0)
	GATHER_FMA(16, 32, Y7, Y8, Y9, Y1)
	ADDQ $32, IDX
	ADDQ $64, VAL
	SUBQ $8, N

dottail:
	// 0..7 left: lanes 0-3 first, then 4-7.
	TESTQ N, N
	JE    dotsum
	CMPQ  N, $4
	JB    dotlow
	GATHER_FMA(0, 0, Y4, Y5, Y6, Y0)
	SUBQ  $4, N
	JE    dotsum
	ADDQ  $16, IDX
	ADDQ  $32, VAL
	TAIL_FMA(Y1)
	JMP   dotsum

dotlow:
	TAIL_FMA(Y0)

dotsum:
	VMOVMSKPD YOK, T
	CMPQ      T, $15
	JNE       dotbad
	SUM8
	VZEROUPPER
	MOVSD     X0, s+72(FP)
	MOVB      $1, ok+80(FP)
	RET

dotbad:
	VZEROUPPER
	MOVQ $0, s+72(FP)
	MOVB $0, ok+80(FP)
	RET

// GATHER_FMA32 is GATHER_FMA with four float32 values
// widened to float64 (V is a scratch register).
#define GATHER_FMA32(ioff, voff, I, M, G, V, ACC) \
	VPMOVZXDQ   ioff(IDX), I     \
	VPCMPGTQ    I, YLIM, M       \
	VPAND       M, YOK, YOK      \
	VXORPD      G, G, G          \
	VGATHERQPD  M, (W)(I*8), G   \
	VCVTPS2PD   voff(VAL), V     \
	VFMADD231PD V, G, ACC

// TAIL_FMA32 is TAIL_FMA for float32 values.
#define TAIL_FMA32(ACC) \
	TAIL_IDX(X10, Y11, X4, Y4, Y5, Y6)  \
	VGATHERQPD  Y5, (W)(Y4*8), Y6   \
	VMASKMOVPS  (VAL), X10, X12     \
	VCVTPS2PD   X12, Y12            \
	VFMADD231PD Y12, Y6, ACC

// func Dot32AVX2(idx []int32, val []float32, w []float64) (s float64, ok bool)
TEXT ·Dot32AVX2(SB), NOSPLIT, $0-81
	MOVQ idx_base+0(FP), IDX
	MOVQ idx_len+8(FP), N
	MOVQ val_base+24(FP), VAL
	MOVQ val_len+32(FP), T
	MOVQ w_base+48(FP), W
	MOVQ w_len+56(FP), LIM
	CLAMP_N_LIM

	VXORPD    Y0, Y0, Y0
	VXORPD    Y1, Y1, Y1
	VMOVQ     LIM, XLIM
	VPBROADCASTQ XLIM, YLIM
	VPCMPEQQ  YOK, YOK, YOK

	CMPQ N, $16
	JB   dot8

dot16:
	GATHER_FMA32(0, 0, Y4, Y5, Y6, Y10, Y0)
	GATHER_FMA32(16, 16, Y7, Y8, Y9, Y11, Y1)
	GATHER_FMA32(32, 32, Y4, Y5, Y6, Y10, Y0)
	GATHER_FMA32(48, 48, Y7, Y8, Y9, Y11, Y1)
	ADDQ $64, IDX
	ADDQ $64, VAL
	SUBQ $16, N
	CMPQ N, $16
	JAE  dot16

dot8:
	CMPQ N, $8
	JB   dottail
	GATHER_FMA32(0, 0, Y4, Y5, Y6, Y10, Y0)
	GATHER_FMA32(16, 16, Y7, Y8, Y9, Y11, Y1)
	ADDQ $32, IDX
	ADDQ $32, VAL
	SUBQ $8, N

dottail:
	TESTQ N, N
	JE    dotsum
	CMPQ  N, $4
	JB    dotlow
	GATHER_FMA32(0, 0, Y4, Y5, Y6, Y10, Y0)
	SUBQ  $4, N
	JE    dotsum
	ADDQ  $16, IDX
	ADDQ  $16, VAL
	TAIL_FMA32(Y1)
	JMP   dotsum

dotlow:
	TAIL_FMA32(Y0)

dotsum:
	VMOVMSKPD YOK, T
	CMPQ      T, $15
	JNE       dotbad
	SUM8
	VZEROUPPER
	MOVSD     X0, s+72(FP)
	MOVB      $1, ok+80(FP)
	RET

dotbad:
	VZEROUPPER
	MOVQ $0, s+72(FP)
	MOVB $0, ok+80(FP)
	RET

// SQ_TAIL accumulates the squares of the 1..3 values left at VAL into
// ACC; the dead lanes load +0 and add +0, which leaves a partial sum of
// squares unchanged (it is never -0).
#define SQ_TAIL(ACC) \
	LEAQ        tailmask<>(SB), TM \
	SHLQ        $4, N              \
	VMOVDQU     (TM)(N*1), X10     \
	VPMOVSXDQ   X10, Y11           \
	VMASKMOVPD  (VAL), Y11, Y4     \
	VFMADD231PD Y4, Y4, ACC

// func SqNormAVX2(val []float64) (s float64)
TEXT ·SqNormAVX2(SB), NOSPLIT, $0-32
	MOVQ val_base+0(FP), VAL
	MOVQ val_len+8(FP), N
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1

	CMPQ N, $16
	JB   sq8

sq16:
	VMOVUPD     0(VAL), Y4
	VMOVUPD     32(VAL), Y5
	VMOVUPD     64(VAL), Y6
	VMOVUPD     96(VAL), Y7
	VFMADD231PD Y4, Y4, Y0
	VFMADD231PD Y5, Y5, Y1
	VFMADD231PD Y6, Y6, Y0
	VFMADD231PD Y7, Y7, Y1
	ADDQ        $128, VAL
	SUBQ        $16, N
	CMPQ        N, $16
	JAE         sq16

sq8:
	CMPQ        N, $8
	JB          sqtail
	VMOVUPD     0(VAL), Y4
	VMOVUPD     32(VAL), Y5
	VFMADD231PD Y4, Y4, Y0
	VFMADD231PD Y5, Y5, Y1
	ADDQ        $64, VAL
	SUBQ        $8, N

sqtail:
	TESTQ N, N
	JE    sqsum
	CMPQ  N, $4
	JB    sqlow
	VMOVUPD     0(VAL), Y4
	VFMADD231PD Y4, Y4, Y0
	SUBQ  $4, N
	JE    sqsum
	ADDQ  $32, VAL
	SQ_TAIL(Y1)
	JMP   sqsum

sqlow:
	SQ_TAIL(Y0)

sqsum:
	SUM8
	VZEROUPPER
	MOVSD X0, s+24(FP)
	RET

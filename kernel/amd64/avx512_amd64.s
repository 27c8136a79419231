//go:build !purego

#include "textflag.h"

// AVX-512 (F + VL) kernels. See stubs_amd64.go for what each computes.
// There is no AVX-512 Axpy: a scatter version did not pay (measurements:
// docs/tuning.md) and, unlike AxpyAVX2, would lose an update when a group
// of 8 repeats an index.

#define IDX SI // &idx[k]
#define VAL DI // &val[k]
#define W   DX // &w[0]
#define N   CX // elements left
#define LIM BX // min(len(w), 1<<31): j is in range iff uint32(j) < LIM
#define T   R8 // scratch

#define YLIM Y15 // LIM in each 32-bit lane
#define XLIM X15
#define KOK  K7  // AND of every in-range mask seen

#define CLAMP_N_LIM \
	CMPQ    T, N         \
	CMOVQLT T, N         \
	MOVQ    $0x80000000, T \
	CMPQ    LIM, T       \
	CMOVQHI T, LIM

// GATHER8(ioff, voff, I, G, ACC): eight indices into I, K1 = in-range
// lanes (uint32(j) < LIM, false for a negative j), gather those w[j] into
// G and accumulate val*G into ACC.
#define GATHER8(ioff, voff, I, G, ACC) \
	VMOVDQU     ioff(IDX), I        \
	VPCMPUD     $1, YLIM, I, K1     \
	KANDW       K1, KOK, KOK        \
	VPXORQ      G, G, G             \
	VGATHERDPD  (W)(I*8), K1, G     \
	VFMADD231PD voff(VAL), G, ACC

// func DotAVX512(idx []int32, val []float64, w []float64) (s float64, ok bool)
TEXT ·DotAVX512(SB), NOSPLIT, $0-81
	MOVQ idx_base+0(FP), IDX
	MOVQ idx_len+8(FP), N
	MOVQ val_base+24(FP), VAL
	MOVQ val_len+32(FP), T
	MOVQ w_base+48(FP), W
	MOVQ w_len+56(FP), LIM
	CLAMP_N_LIM

	VPXORQ       Z0, Z0, Z0
	VPXORQ       Z1, Z1, Z1
	VPXORQ       Z2, Z2, Z2
	VPXORQ       Z3, Z3, Z3
	VPBROADCASTD LIM, YLIM
	MOVL         $0xff, T
	KMOVW        T, KOK

	CMPQ N, $32
	JB   dotrest

dot32:
	GATHER8(0, 0, Y4, Z5, Z0)
	GATHER8(32, 64, Y6, Z7, Z1)
	GATHER8(64, 128, Y8, Z9, Z2)
	GATHER8(96, 192, Y10, Z11, Z3)
	ADDQ $128, IDX
	ADDQ $256, VAL
	SUBQ $32, N
	CMPQ N, $32
	JAE  dot32

dotrest:
	// 0..31 left: whole groups of 8 go to separate accumulators, so
	// that short vectors do not wait on a chain of FMAs.
	CMPQ N, $8
	JB   dottail
	GATHER8(0, 0, Y4, Z5, Z0)
	CMPQ N, $16
	JB   dot8
	GATHER8(32, 64, Y6, Z7, Z1)
	CMPQ N, $24
	JB   dot16
	GATHER8(64, 128, Y8, Z9, Z2)
	ADDQ $96, IDX
	ADDQ $192, VAL
	SUBQ $24, N
	JMP  dottail

dot16:
	ADDQ $64, IDX
	ADDQ $128, VAL
	SUBQ $16, N
	JMP  dottail

dot8:
	ADDQ $32, IDX
	ADDQ $64, VAL
	SUBQ $8, N

dottail:
	TESTQ N, N
	JE    dotsum
	// 1..7 left: K2 = (1<<N)-1 selects them. Masked-off lanes are
	// neither loaded nor faulted on; they load as index 0, which passes
	// the range check unless len(w) == 0, and then the real lanes fail.
	MOVL        $1, T
	SHLL        CX, T
	DECL        T
	KMOVW       T, K2
	VMOVDQU32.Z (IDX), K2, Y4
	VPCMPUD     $1, YLIM, Y4, K1
	KANDW       K1, KOK, KOK
	KANDW       K2, K1, K1
	VPXORQ      Z5, Z5, Z5
	VGATHERDPD  (W)(Y4*8), K1, Z5
	VMOVUPD.Z   (VAL), K2, Z6
	VFMADD231PD Z6, Z5, Z3

dotsum:
	KMOVW     KOK, T
	CMPL      T, $0xff
	JNE       dotbad
	VADDPD    Z1, Z0, Z0
	VADDPD    Z3, Z2, Z2
	VADDPD    Z2, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPD    Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD    X1, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD    X1, X0, X0
	VZEROUPPER
	MOVSD     X0, s+72(FP)
	MOVB      $1, ok+80(FP)
	RET

dotbad:
	VZEROUPPER
	MOVQ $0, s+72(FP)
	MOVB $0, ok+80(FP)
	RET

// GATHER8_32 is GATHER8 with eight float32 values widened to float64
// (V is a scratch register).
#define GATHER8_32(ioff, voff, I, G, V, ACC) \
	VMOVDQU     ioff(IDX), I        \
	VPCMPUD     $1, YLIM, I, K1     \
	KANDW       K1, KOK, KOK        \
	VPXORQ      G, G, G             \
	VGATHERDPD  (W)(I*8), K1, G     \
	VCVTPS2PD   voff(VAL), V        \
	VFMADD231PD V, G, ACC

// func Dot32AVX512(idx []int32, val []float32, w []float64) (s float64, ok bool)
TEXT ·Dot32AVX512(SB), NOSPLIT, $0-81
	MOVQ idx_base+0(FP), IDX
	MOVQ idx_len+8(FP), N
	MOVQ val_base+24(FP), VAL
	MOVQ val_len+32(FP), T
	MOVQ w_base+48(FP), W
	MOVQ w_len+56(FP), LIM
	CLAMP_N_LIM

	VPXORQ       Z0, Z0, Z0
	VPXORQ       Z1, Z1, Z1
	VPXORQ       Z2, Z2, Z2
	VPXORQ       Z3, Z3, Z3
	VPBROADCASTD LIM, YLIM
	MOVL         $0xff, T
	KMOVW        T, KOK

	CMPQ N, $32
	JB   dotrest

dot32:
	GATHER8_32(0, 0, Y4, Z5, Z12, Z0)
	GATHER8_32(32, 32, Y6, Z7, Z13, Z1)
	GATHER8_32(64, 64, Y8, Z9, Z12, Z2)
	GATHER8_32(96, 96, Y10, Z11, Z13, Z3)
	ADDQ $128, IDX
	ADDQ $128, VAL
	SUBQ $32, N
	CMPQ N, $32
	JAE  dot32

dotrest:
	CMPQ N, $8
	JB   dottail
	GATHER8_32(0, 0, Y4, Z5, Z12, Z0)
	CMPQ N, $16
	JB   dot8
	GATHER8_32(32, 32, Y6, Z7, Z13, Z1)
	CMPQ N, $24
	JB   dot16
	GATHER8_32(64, 64, Y8, Z9, Z12, Z2)
	ADDQ $96, IDX
	ADDQ $96, VAL
	SUBQ $24, N
	JMP  dottail

dot16:
	ADDQ $64, IDX
	ADDQ $64, VAL
	SUBQ $16, N
	JMP  dottail

dot8:
	ADDQ $32, IDX
	ADDQ $32, VAL
	SUBQ $8, N

dottail:
	TESTQ N, N
	JE    dotsum
	// 1..7 left: K2 = (1<<N)-1 selects them. Masked-off lanes are
	// neither loaded nor faulted on; they load as index 0, which passes
	// the range check unless len(w) == 0, and then the real lanes fail.
	MOVL        $1, T
	SHLL        CX, T
	DECL        T
	KMOVW       T, K2
	VMOVDQU32.Z (IDX), K2, Y4
	VPCMPUD     $1, YLIM, Y4, K1
	KANDW       K1, KOK, KOK
	KANDW       K2, K1, K1
	VPXORQ      Z5, Z5, Z5
	VGATHERDPD  (W)(Y4*8), K1, Z5
	VMOVUPS.Z   (VAL), K2, Y6
	VCVTPS2PD   Y6, Z6
	VFMADD231PD Z6, Z5, Z3

dotsum:
	KMOVW     KOK, T
	CMPL      T, $0xff
	JNE       dotbad
	VADDPD    Z1, Z0, Z0
	VADDPD    Z3, Z2, Z2
	VADDPD    Z2, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPD    Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD    X1, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD    X1, X0, X0
	VZEROUPPER
	MOVSD     X0, s+72(FP)
	MOVB      $1, ok+80(FP)
	RET

dotbad:
	VZEROUPPER
	MOVQ $0, s+72(FP)
	MOVB $0, ok+80(FP)
	RET

// func SqNormAVX512(val []float64) (s float64)
TEXT ·SqNormAVX512(SB), NOSPLIT, $0-32
	MOVQ val_base+0(FP), VAL
	MOVQ val_len+8(FP), N
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3

	CMPQ N, $32
	JB   sq8

sq32:
	VMOVUPD     0(VAL), Z4
	VMOVUPD     64(VAL), Z5
	VMOVUPD     128(VAL), Z6
	VMOVUPD     192(VAL), Z7
	VFMADD231PD Z4, Z4, Z0
	VFMADD231PD Z5, Z5, Z1
	VFMADD231PD Z6, Z6, Z2
	VFMADD231PD Z7, Z7, Z3
	ADDQ        $256, VAL
	SUBQ        $32, N
	CMPQ        N, $32
	JAE         sq32

sq8:
	CMPQ        N, $8
	JB          sqtail
	VMOVUPD     0(VAL), Z4
	VFMADD231PD Z4, Z4, Z0
	ADDQ        $64, VAL
	SUBQ        $8, N
	JMP         sq8

sqtail:
	TESTQ       N, N
	JE          sqsum
	MOVL        $1, T
	SHLL        CX, T
	DECL        T
	KMOVW       T, K1
	VMOVUPD.Z   (VAL), K1, Z4
	VFMADD231PD Z4, Z4, Z1

sqsum:
	VADDPD    Z1, Z0, Z0
	VADDPD    Z3, Z2, Z2
	VADDPD    Z2, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPD    Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD    X1, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD    X1, X0, X0
	VZEROUPPER
	MOVSD     X0, s+24(FP)
	RET

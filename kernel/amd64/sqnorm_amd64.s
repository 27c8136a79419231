//go:build !purego

#include "textflag.h"

#define VAL DI
#define N   CX

// func SqNormAVX2(val []float64) (s float64)
TEXT ·SqNormAVX2(SB), NOSPLIT, $0-32
	MOVQ val_base+0(FP), VAL
	MOVQ val_len+8(FP), N
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD X12, X12, X12

	CMPQ N, $16
	JB   sq4

sq16:
	VMOVUPD     0(VAL), Y4
	VMOVUPD     32(VAL), Y5
	VMOVUPD     64(VAL), Y6
	VMOVUPD     96(VAL), Y7
	VFMADD231PD Y4, Y4, Y0
	VFMADD231PD Y5, Y5, Y1
	VFMADD231PD Y6, Y6, Y2
	VFMADD231PD Y7, Y7, Y3
	ADDQ        $128, VAL
	SUBQ        $16, N
	CMPQ        N, $16
	JAE         sq16

sq4:
	CMPQ        N, $4
	JB          sqtail
	VMOVUPD     0(VAL), Y4
	VFMADD231PD Y4, Y4, Y0
	ADDQ        $32, VAL
	SUBQ        $4, N
	JMP         sq4

sqtail:
	TESTQ N, N
	JE    sqsum

sq1:
	VMOVSD      (VAL), X4
	VFMADD231SD X4, X4, X12
	ADDQ        $8, VAL
	DECQ        N
	JNE         sq1

sqsum:
	VADDPD    Y1, Y0, Y0
	VADDPD    Y3, Y2, Y2
	VADDPD    Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD    X1, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD    X1, X0, X0
	VADDSD    X12, X0, X0
	VZEROUPPER
	MOVSD     X0, s+24(FP)
	RET

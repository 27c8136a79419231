#include "textflag.h"

// func prefetchRow(idx unsafe.Pointer, nidx uintptr, val unsafe.Pointer, nval uintptr)
// Issues PREFETCHT0 for every 64-byte line of [idx, idx+nidx) and [val, val+nval).
TEXT ·prefetchRow(SB), NOSPLIT|NOFRAME, $0-32
	MOVQ idx+0(FP), AX
	MOVQ nidx+8(FP), BX
	MOVQ val+16(FP), CX
	MOVQ nval+24(FP), DX
	ADDQ AX, BX
loopi:
	CMPQ AX, BX
	JAE  vals
	PREFETCHT0 (AX)
	ADDQ $64, AX
	JMP  loopi
vals:
	ADDQ CX, DX
loopv:
	CMPQ CX, DX
	JAE  done
	PREFETCHT0 (CX)
	ADDQ $64, CX
	JMP  loopv
done:
	RET

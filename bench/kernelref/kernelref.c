/*
 * kernelref.c: C reference for the acfcd sparse kernels (package kernel),
 * to run beside the Go benchmarks. Same loops as kernel/generic.go (Dot,
 * Axpy over int32 idx, double val, double w), same shapes and the same
 * index/value generation as kernel/bench_test.go (splitmix64 stream,
 * selection sampling or draw-sort-dedupe, 2^16 non-zeros per rotating set
 * of vectors, one shared w of 16M doubles), so both sides see identical
 * inputs. Output is in Go benchmark format:
 *
 *   BenchmarkDot/impl=c-O3-native/dim=D/nnz=N-P  iters  ns/op  cpu-nnz/s  nnz/s
 *
 * (cpu-nnz/s counts the thread's CPU time instead of the wall clock, as
 * the Go benchmarks do, which is steadier on a shared machine.)
 *
 * Usage: kernelref LABEL [-benchtime SECONDS] [-count N] [-bench Dot|Axpy]
 * Built and run by run.sh (gcc -O3 -march=native). Not cgo.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const long dims[] = {4096, 65536, 1L << 20, 1L << 24};
static const long nnzs[] = {16, 256, 4096};
#define NDIMS 4
#define NNNZ 3
#define BUDGET (1L << 16)

/* The kernels: the plain loops, kept out of line like a library call. */

__attribute__((noinline)) double dot(const int32_t *idx, const double *val, const double *w, long n)
{
	double s = 0;
	for (long k = 0; k < n; k++)
		s += val[k] * w[idx[k]];
	return s;
}

__attribute__((noinline)) void axpy(double a, const int32_t *idx, const double *val, double *w, long n)
{
	for (long k = 0; k < n; k++)
		w[idx[k]] += a * val[k];
}

/* splitmix64, as in kernel/bench_test.go. */
static uint64_t sm_state;

static uint64_t sm_next(void)
{
	uint64_t z = (sm_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static long sm_below(long d) { return (long)(((sm_next() >> 32) * (uint64_t)d) >> 32); }
static double sm_unit(void) { return (double)(sm_next() >> 11) * 0x1p-53; }

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* bench_indices fills idx with n distinct sorted indices in [0, d). */
static void bench_indices(int32_t *idx, long n, long d)
{
	long len = 0;
	if (2 * n > d) {
		for (long j = 0; j < d && len < n; j++)
			if (sm_below(d - j) < n - len)
				idx[len++] = (int32_t)j;
		return;
	}
	while (len < n) {
		while (len < n)
			idx[len++] = (int32_t)sm_below(d);
		qsort(idx, (size_t)len, sizeof idx[0], cmp_i32);
		long m = 0;
		for (long i = 0; i < len; i++)
			if (m == 0 || idx[i] != idx[m - 1])
				idx[m++] = idx[i];
		len = m;
	}
}

struct set {
	long r, n;
	int32_t **idx;
	double **val;
};

static struct set make_set(long d, long n)
{
	struct set s;
	s.n = n;
	s.r = BUDGET / n > 4 ? BUDGET / n : 4;
	s.idx = malloc(sizeof *s.idx * (size_t)s.r);
	s.val = malloc(sizeof *s.val * (size_t)s.r);
	sm_state = (uint64_t)d * 1000003u + (uint64_t)n;
	for (long i = 0; i < s.r; i++) {
		s.idx[i] = malloc(sizeof(int32_t) * (size_t)n);
		s.val[i] = malloc(sizeof(double) * (size_t)n);
		bench_indices(s.idx[i], n, d);
		for (long k = 0; k < n; k++)
			s.val[i][k] = 2 * sm_unit() - 1;
	}
	return s;
}

static void free_set(struct set s)
{
	for (long i = 0; i < s.r; i++) {
		free(s.idx[i]);
		free(s.val[i]);
	}
	free(s.idx);
	free(s.val);
}

static double clock_sec(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now(void) { return clock_sec(CLOCK_MONOTONIC); }

static double last_cpu; /* thread CPU seconds of the last run */

static volatile double sink;

/* run does iters calls and returns the seconds taken. */
static double run(int isdot, struct set *s, double *w, long iters)
{
	double c0 = clock_sec(CLOCK_THREAD_CPUTIME_ID), t0 = now(), acc = 0, a = 1e-3;
	long r = 0;
	for (long i = 0; i < iters; i++) {
		if (isdot)
			acc += dot(s->idx[r], s->val[r], w, s->n);
		else {
			axpy(a, s->idx[r], s->val[r], w, s->n);
			a = -a;
		}
		if (++r == s->r)
			r = 0;
	}
	sink = acc;
	double t = now() - t0;
	last_cpu = clock_sec(CLOCK_THREAD_CPUTIME_ID) - c0;
	return t;
}

int main(int argc, char **argv)
{
	const char *label = argc > 1 ? argv[1] : "c";
	double benchtime = 1;
	int count = 1;
	const char *only = NULL;
	for (int i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-benchtime"))
			benchtime = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "-count"))
			count = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "-bench"))
			only = argv[i + 1];
	}
	long procs = sysconf(_SC_NPROCESSORS_ONLN);

	long maxd = dims[NDIMS - 1];
	double *w = malloc(sizeof(double) * (size_t)maxd);
	sm_state = 12345;
	for (long i = 0; i < maxd; i++)
		w[i] = sm_unit();

	static struct set sets[NDIMS][NNNZ];
	for (int di = 0; di < NDIMS; di++)
		for (int ni = 0; ni < NNNZ; ni++)
			sets[di][ni] = make_set(dims[di], nnzs[ni]);

	for (int op = 0; op < 2; op++) {
		const char *name = op == 0 ? "Dot" : "Axpy";
		if (only && !strstr(name, only))
			continue;
		for (int di = 0; di < NDIMS; di++)
			for (int ni = 0; ni < NNNZ; ni++)
				for (int c = 0; c < count; c++) {
					struct set *s = &sets[di][ni];
					/* Grow the iteration count like testing.B until the run
					 * takes benchtime. */
					long iters = 1;
					double t = run(op == 0, s, w, iters);
					while (t < benchtime && iters < 2000000000L) {
						double want = t > 0 ? 1.2 * benchtime / t * (double)iters : 100.0 * (double)iters;
						long next = (long)want;
						if (next > 100 * iters)
							next = 100 * iters;
						if (next <= iters)
							next = iters + 1;
						iters = next;
						t = run(op == 0, s, w, iters);
					}
					double total = (double)s->n * (double)iters;
					printf("Benchmark%s/impl=%s/dim=%ld/nnz=%ld-%ld\t%10ld\t%12.2f ns/op\t%12.0f cpu-nnz/s\t%12.0f nnz/s\n",
					       name, label, dims[di], nnzs[ni], procs, iters, 1e9 * t / (double)iters,
					       total / last_cpu, total / t);
					fflush(stdout);
				}
	}
	for (int di = 0; di < NDIMS; di++)
		for (int ni = 0; ni < NNNZ; ni++)
			free_set(sets[di][ni]);
	free(w);
	return 0;
}

/* The program the perf.data benchmark records (bench/gen-perfdata.ts): for SECONDS, in phases, so a
 * timeline has something to show. Phase 1 (the first quarter): the main thread "parses" (a
 * recursive descent 6–30 calls deep over 24 functions); phase 2 (the next half): three named
 * workers "compute" (the same functions, other paths); phase 3: two workers alternate short bursts
 * and sleeps. Built with frame pointers everywhere, so perf's call graphs are whole.
 *
 *   perfdata-prog SECONDS */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static double t_end;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static unsigned long spin(unsigned long x, unsigned n) {
  for (unsigned i = 0; i < n; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
  return x;
}

typedef unsigned long (*step_fn)(unsigned long, int);
static step_fn steps[24];

/* Each calls the next step chosen by its seed, until depth runs out, then spins. */
#define STEP(N)                                                                                  \
  __attribute__((noinline)) static unsigned long step##N(unsigned long seed, int depth) {        \
    seed = seed * 2862933555777941757UL + 3037000493UL + N;                                      \
    if (depth <= 0) return spin(seed, 2000 + (seed >> 60) * 500);                                \
    unsigned long r = steps[(seed >> 33) % 24](seed, depth - 1);                                  \
    if ((seed >> 40) % 4 == 0) r += steps[(seed >> 45) % 24](seed ^ r, depth / 2);               \
    return r;                                                                                    \
  }
STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8) STEP(9) STEP(10) STEP(11)
STEP(12) STEP(13) STEP(14) STEP(15) STEP(16) STEP(17) STEP(18) STEP(19) STEP(20) STEP(21) STEP(22)
STEP(23)

__attribute__((noinline)) static void parse(double until) {
  unsigned long seed = 1;
  while (now() < until) sink += steps[seed % 8](seed++, 6 + (int)(seed % 25));
}

__attribute__((noinline)) static void compute(double until, unsigned long seed) {
  while (now() < until) sink += steps[8 + seed % 16](seed++, 6 + (int)(seed % 19));
}

__attribute__((noinline)) static void bursts(double until, unsigned long seed) {
  while (now() < until) {
    double stop = now() + 0.004;
    while (now() < stop) sink += steps[seed % 24](seed++, 4 + (int)(seed % 9));
    usleep(3000);
  }
}

struct job {
  const char *name;
  double from;
  double until;
  int kind;
  unsigned long seed;
};

static void *worker(void *arg) {
  struct job *j = arg;
  pthread_setname_np(pthread_self(), j->name);
  while (now() < j->from) usleep(1000);
  if (j->kind == 0) compute(j->until, j->seed);
  else bursts(j->until, j->seed);
  return 0;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 10;
  steps[0] = step0, steps[1] = step1, steps[2] = step2, steps[3] = step3, steps[4] = step4;
  steps[5] = step5, steps[6] = step6, steps[7] = step7, steps[8] = step8, steps[9] = step9;
  steps[10] = step10, steps[11] = step11, steps[12] = step12, steps[13] = step13;
  steps[14] = step14, steps[15] = step15, steps[16] = step16, steps[17] = step17;
  steps[18] = step18, steps[19] = step19, steps[20] = step20, steps[21] = step21;
  steps[22] = step22, steps[23] = step23;
  double t0 = now();
  t_end = t0 + seconds;
  struct job jobs[] = {
      {"compute-1", t0 + seconds * 0.25, t0 + seconds * 0.75, 0, 11},
      {"compute-2", t0 + seconds * 0.25, t0 + seconds * 0.75, 0, 22},
      {"compute-3", t0 + seconds * 0.30, t0 + seconds * 0.70, 0, 33},
      {"bursts-1", t0 + seconds * 0.75, t_end, 1, 44},
      {"bursts-2", t0 + seconds * 0.75, t_end, 1, 55},
  };
  pthread_t t[5];
  for (int i = 0; i < 5; i++) pthread_create(&t[i], 0, worker, &jobs[i]);
  parse(t0 + seconds * 0.25);
  for (int i = 0; i < 5; i++) pthread_join(t[i], 0);
  printf("%lu\n", sink);
  return 0;
}

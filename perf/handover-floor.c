/* The native floor of a turn's hand-over (issue 37, session 24): what a
 * system call and a switch between two threads on one host CPU cost here,
 * without Valgrind. Two threads pinned to CPU 0 pass a turn through a
 * ticket lock like Valgrind's --fair-sched=yes lock:
 *   S: release, sched_yield, take a ticket (the tool's hand-over);
 *   E: release, take a ticket (the waiter is woken by the release; a
 *      thread that got the lock out of turn yields as in S).
 * Also a gettid call, and the three calls of Valgrind's poll_signals
 * (block all signals, sigtimedwait with a zero timeout, restore).
 *
 * usage: cc -O2 -pthread perf/handover-floor.c -o /tmp/floor && /tmp/floor [N]
 * (wall time per turn: run it on an idle machine, under perf stat -e
 * context-switches to see one switch a turn) */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned head, tail, fut[2];
static int N, mode;   /* 0: S, 1: E */

static void fwait(volatile unsigned *w, unsigned v) { syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, v, 0, 0, 0); }
static void fwake(volatile unsigned *w) { syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 0x7fffffff, 0, 0, 0); }
static void acquire(void)
{
   unsigned t = __sync_fetch_and_add(&tail, 1), v;
   for (;;) { v = fut[t & 1]; __sync_synchronize(); if (t == head) break; fwait(&fut[t & 1], v); }
}
static void release(void)
{
   unsigned w = __sync_fetch_and_add(&head, 1) + 1;
   if (tail != w) { __sync_fetch_and_add(&fut[w & 1], 1); fwake(&fut[w & 1]); }
}
static volatile int turn;  /* whose turn: 0 or 1 */
static void *run(void *arg)
{
   int me = (int)(long)arg, i;
   cpu_set_t s; CPU_ZERO(&s); CPU_SET(0, &s); sched_setaffinity(0, sizeof s, &s);
   acquire();
   for (i = 0; i < N; ) {
      int mine = turn == me;
      if (mine) { turn = !me; i++; }               /* my turn: take it, hand on */
      release();
      if (mode == 0 || !mine) sched_yield();       /* E: yield only when not due */
      acquire();
   }
   release();
   return 0;
}
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv)
{
   pthread_t a, b; double t0; int i; sigset_t ss, old; siginfo_t si; struct timespec z = {0, 0};
   N = argc > 1 ? atoi(argv[1]) : 200000;
   t0 = now(); for (i = 0; i < N; i++) syscall(SYS_gettid);
   printf("gettid %.3f us\n", (now() - t0) / N * 1e6);
   sigfillset(&ss);
   t0 = now();
   for (i = 0; i < N; i++) { sigprocmask(SIG_SETMASK, &ss, &old); syscall(SYS_rt_sigtimedwait, &ss, &si, &z, 8); sigprocmask(SIG_SETMASK, &old, 0); }
   printf("poll_signals' 3 calls %.3f us\n", (now() - t0) / N * 1e6);
   for (mode = 0; mode < 2; mode++) {
      turn = 0; t0 = now();
      pthread_create(&a, 0, run, (void *)0L); pthread_create(&b, 0, run, (void *)1L);
      pthread_join(a, 0); pthread_join(b, 0);
      printf("%s: %.3f us a turn (wall)\n", mode ? "E release+acquire" : "S release+sched_yield+acquire", (now() - t0) / (2.0 * N) * 1e6);
   }
   return 0;
}

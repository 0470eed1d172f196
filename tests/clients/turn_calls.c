/* Two threads bump the two counters of one line (false sharing, as in
   interleave.c) with a system call in every iteration, to check which
   calls end a turn of --interleave (tests/tool/interleave.py derives the
   counts).

   turn_calls write   each iteration writes 0 bytes to /dev/null: a call
                      that comes back by itself, part of the turn
   turn_calls yield   each iteration calls sched_yield: it ends the turn

   The loop is written in assembly so that its blocks are known: the
   system call ends the first block (incq .. syscall), the decrement and
   the branch back are the second: two superblocks per iteration. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PATTERN 0
#include "sharing_patterns.h"

#define ITERS 20000L

static int devnull;
static long call_no;                  /* SYS_write or SYS_sched_yield */

/* *p += 1 and the call (0 bytes to devnull; sched_yield ignores them), n times */
__attribute__((noinline)) static void bump_call_loop(long *p, long n)
{
   long ret;
   __asm__ volatile("1: incq (%1)\n\t"
                    "mov %3, %%rax\n\t"
                    "mov %4, %%edi\n\t"
                    "xor %%esi, %%esi\n\t"
                    "xor %%edx, %%edx\n\t"
                    "syscall\n\t"
                    "decq %2\n\t"
                    "jnz 1b"
                    : "=&a"(ret), "+r"(p), "+r"(n)
                    : "r"(call_no), "r"(devnull)
                    : "rdi", "rsi", "rdx", "rcx", "r11", "memory", "cc");
}

static void *worker(void *arg)
{
   bump_call_loop(target((int)(long)arg), ITERS);
   return NULL;
}

int main(int argc, char **argv)
{
   pthread_t t[2];
   long i;
   devnull = open("/dev/null", O_WRONLY);
   call_no = argc > 1 && strcmp(argv[1], "yield") == 0 ? SYS_sched_yield : SYS_write;
   for (i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void *)i);
   for (i = 0; i < 2; i++) pthread_join(t[i], NULL);
   printf("%ld %ld\n", pair.a, pair.b);
   return 0;
}

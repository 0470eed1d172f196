/* callgrind-bd: the turns of --interleave on one host CPU (--pin-threads).
 *
 * Why: under Valgrind the client's threads run one at a time, and with
 * --interleave they hand the lock on every few hundred blocks. Each
 * hand-over wakes the next thread's OS thread. On an idle machine the
 * kernel wakes it on another, idle CPU: the hand-over then costs an
 * inter-processor wake-up, a CPU leaving its idle state, and the tool's
 * tables moving between the host cores' caches -- about 50 us a turn on
 * the OpenMP Jacobi, against 2 to 5 us when the threads share one CPU.
 * Since only one of them runs at a time anyway, keeping them all on one
 * CPU costs nothing.
 *
 * The rules:
 *  - While two or more threads live, a thread starting a turn pins itself
 *    (sched_setaffinity, one CPU) to the home CPU, which the first turn
 *    after the second thread appeared takes from the CPU it runs on.
 *  - Home follows the load: every REHOME_TURNS turns the thread starting
 *    the turn unpins itself instead, so that its next wake-up goes where
 *    the kernel likes (an idle CPU when home is busy with another
 *    process); the CPU it wakes up on becomes home when its next turn
 *    starts, and each thread moves there as its next turn starts.
 *  - The client sees the mask it had: sched_getaffinity of a pinned
 *    thread returns the original mask. A client that sets an affinity
 *    itself is left to it: no pinning from then on, and each thread gets
 *    its mask back as its next turn starts.
 *  - One thread left, a fork's child, an execve: the mask is given back.
 *  - Pinning changes when the OS threads run, never the order of the turns
 *    (the queue of interleave.c decides it): the profile is the same with
 *    and without it.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_vkiscnums.h"

/* The core's raw system call (coregrind's pub_core_syscall.h; tools link
 * the core statically). The tool headers offer no affinity call. */
extern SysRes VG_(do_syscall)(UWord sysno, RegWord a1, RegWord a2, RegWord a3,
                              RegWord a4, RegWord a5, RegWord a6, RegWord a7,
                              RegWord a8);

#define MASK_BYTES   1024           /* room for 8192 CPUs */
#define REHOME_TURNS 256            /* turns between two looks for a better home */

static Bool pinning;                /* pin the threads at their turns */
static UChar orig_mask[MASK_BYTES]; /* the client's mask (all its threads') */
static SizeT orig_len;              /* its bytes, as the kernel gives them */
static Int home_cpu = -1;           /* -1: to be taken from the next turn */
static UInt home_epoch = 1;         /* changes with home */
static UInt *pinned_for;            /* by thread: the home_epoch it is pinned
                                     * for; 0: it has the client's mask */
static ULong turns;                 /* turns started with pinning on */
static ThreadId rehoming = VG_INVALID_THREADID;  /* unpinned to find a home */
static ULong pins, home_moves, failures;        /* -v */

static SysRes syscall3(UWord sysno, UWord a1, UWord a2, UWord a3)
{
   return VG_(do_syscall)(sysno, a1, a2, a3, 0, 0, 0, 0, 0);
}

/* The calling OS thread's affinity set to len bytes of mask. */
static Bool set_own_mask(const UChar *mask, SizeT len)
{
   return !sr_isError(syscall3(__NR_sched_setaffinity, 0, len, (UWord)mask));
}

static Int current_cpu(void)
{
   UInt cpu = 0;
   SysRes r = syscall3(__NR_getcpu, (UWord)&cpu, 0, 0);
   return sr_isError(r) ? -1 : (Int)cpu;
}

/* Pinning cannot work here (no affinity calls, a CPU outside the mask):
 * the threads keep the client's mask, the turns cost what they cost. */
static void give_up(void)
{
   pinning = False;
   failures++;
}

void cb_pin_post_clo_init(void)
{
   SysRes r;
   if (!cb_clo.pin_threads || !cb_il_active()) return;
   r = syscall3(__NR_sched_getaffinity, 0, MASK_BYTES, (UWord)orig_mask);
   if (sr_isError(r)) { failures++; return; }
   orig_len = sr_Res(r);
   pinned_for = VG_(calloc)("cb.pin.threads", VG_N_THREADS, sizeof *pinned_for);
   pinning = True;
}

static void unpin(ThreadId tid)
{
   if (!pinned_for || pinned_for[tid] == 0) return;
   if (!set_own_mask(orig_mask, orig_len)) failures++;
   pinned_for[tid] = 0;
}

static void pin_to_home(ThreadId tid)
{
   UChar mask[MASK_BYTES];
   if (home_cpu < 0 || (SizeT)home_cpu >= orig_len * 8) { give_up(); return; }
   VG_(memset)(mask, 0, orig_len);
   mask[home_cpu / 8] = (UChar)(1 << (home_cpu % 8));
   if (!set_own_mask(mask, orig_len)) { give_up(); return; }
   pinned_for[tid] = home_epoch;
   pins++;
}

/* The CPU the starting thread woke up on becomes home. */
static void take_home_here(void)
{
   Int cpu = current_cpu();
   if (cpu == home_cpu) return;
   if (cpu < 0) { give_up(); return; }
   if (home_cpu >= 0) home_moves++;
   home_cpu = cpu;
   home_epoch++;
}

/* tid runs on as the only thread: nothing to hand over, the kernel may
 * place it where it likes. */
void cb_pin_alone(ThreadId tid)
{
   unpin(tid);
}

/* tid starts a turn while two or more threads live. */
void cb_pin_turn_starts(ThreadId tid)
{
   if (!pinned_for) return;
   if (!pinning) { unpin(tid); return; }
   if (tid == rehoming || home_cpu < 0) {
      rehoming = VG_INVALID_THREADID;
      take_home_here();
      if (!pinning) { unpin(tid); return; }
   }
   if (++turns % REHOME_TURNS == 0 && rehoming == VG_INVALID_THREADID) {
      unpin(tid);
      rehoming = tid;
      return;
   }
   if (pinned_for[tid] != home_epoch) pin_to_home(tid);
}

/* The thread an affinity call names (pid 0: the caller), if we pinned it. */
static ThreadId pinned_thread(ThreadId tid, Int pid)
{
   ThreadId t;
   if (pid == 0) return pinned_for[tid] ? tid : VG_INVALID_THREADID;
   for (t = 1; t < VG_N_THREADS; t++)
      if (pinned_for[t] && cb_il_os_thread(t) == pid) return t;
   return VG_INVALID_THREADID;
}

/* Does an affinity call's pid name a thread of this process? (tgkill
 * with signal 0 only checks that the thread is in the thread group.) */
static Bool is_own_thread(Int pid)
{
   Int me = VG_(getpid)();
   return pid == 0 || pid == me
       || !sr_isError(syscall3(__NR_tgkill, (UWord)me, (UWord)pid, 0));
}

/* The client's own mask shown in place of the pin (the kernel copied
 * `copied` bytes to buf). */
static void show_client_mask(Addr buf, SizeT copied)
{
   VG_(memcpy)((void *)buf, orig_mask, copied < orig_len ? copied : orig_len);
}

/* Around the client's system calls (res: NULL before the call). */
void cb_pin_syscall(ThreadId tid, UInt sysno, UWord *args, SysRes *res)
{
   ThreadId t;
   if (!pinned_for) return;
   if (sysno == __NR_sched_setaffinity) {
      if (!is_own_thread((Int)args[0])) return;  /* another process's */
      pinning = False;                      /* the client decides */
      t = pinned_thread(tid, (Int)args[0]);
      if (res && !sr_isError(*res) && t != VG_INVALID_THREADID) pinned_for[t] = 0;
   } else if (sysno == __NR_sched_getaffinity && res && !sr_isError(*res)) {
      if (pinned_thread(tid, (Int)args[0]) != VG_INVALID_THREADID)
         show_client_mask(args[2], sr_Res(*res));
   } else if ((sysno == __NR_execve || sysno == __NR_execveat) && !res) {
      unpin(tid);                           /* the new program's mask */
   }
}

/* A new thread inherits its creator's mask. */
void cb_pin_thread_created(ThreadId parent, ThreadId child)
{
   if (pinned_for) pinned_for[child] = pinned_for[parent];
}

void cb_pin_thread_exited(ThreadId tid)
{
   if (pinned_for) pinned_for[tid] = 0;
}

/* In a fork's child only the forking thread lives on, with the client's
 * mask again. */
void cb_pin_forked_child(ThreadId tid)
{
   ThreadId t;
   if (!pinned_for) return;
   unpin(tid);
   for (t = 0; t < VG_N_THREADS; t++) pinned_for[t] = 0;
   home_cpu = -1;
   rehoming = VG_INVALID_THREADID;
   turns = pins = home_moves = failures = 0;
}

void cb_pin_print_stats(void)
{
   if (cb_il_active() && cb_clo.pin_threads)
      VG_(dmsg)("interleave: %llu pins to one host CPU, home moved %llu times, "
                "%llu affinity calls failed%s\n", pins, home_moves, failures,
                pinning ? "" : " (pinning off)");
}

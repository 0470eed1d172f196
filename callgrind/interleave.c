/* callgrind-bd: --interleave=<blocks> -- threads take turns every N blocks,
 * so that the private caches of --private-caches=yes see the interleaving
 * that real cores produce instead of Valgrind's slices of 100,000 blocks.
 *
 * The rules of the model:
 *  - A thread's turn is N blocks of its own code (superblocks as Valgrind
 *    runs them), counted, never timed: the same program and command give
 *    the same order wherever all threads are runnable.
 *  - When the turn is used up, the thread ends its time slice the way
 *    Valgrind ends any slice: its block's code sets the guest state's
 *    event counter (host_EvC_COUNTER, which the check at the start of every
 *    translation decrements) to zero, so the next block's check fails, the
 *    scheduler takes the thread off and hands the lock on. No client
 *    register changes, no Valgrind change.
 *  - Handing on needs the ticket lock of --fair-sched=yes (the default
 *    pipe lock lets the releasing thread take the lock straight back), so
 *    the tool switches it on, and refuses an explicit --fair-sched=no.
 *  - Whose turn is next is the tool's queue, not the kernel's timing: a
 *    thread whose turn ended queues; a new thread queues when it is
 *    created, its creator behind it; the threads a futex wake-up woke
 *    queue when the waking call returns (cb_il_syscall). A thread that
 *    gets the lock out of turn gives it back (cb_il_thread_runs).
 *  - A system call that waits for another thread, a child, a signal or
 *    the clock (a futex wait, a sleep, poll, a read from a pipe or
 *    socket: call_kind) ends the turn as it starts; the caller queues
 *    when it comes back and is never waited for; the next thread starts
 *    a whole turn. sched_yield ends the turn too, but its caller keeps
 *    its place in the queue (it comes back by itself).
 *  - Any other system call (a write, an mmap, a read from a file) is
 *    part of the turn: while it runs, a thread that gets the lock (the
 *    core releases it around every call that may block) waits for the
 *    caller to come back, as it waits when the core's own time slice
 *    ends inside a turn (the core shortens it when a spin loop runs
 *    `pause`). Else who went next would depend on which OS thread the
 *    kernel ran first. Unless such a call blocks after all (a write to
 *    a full pipe, the open of a FIFO): once the caller's OS thread has
 *    slept in the kernel for 20 ms, its turn ends as if the call were one
 *    that waits (end_turn_if_owner_blocked).
 *  - A thread's exit is a wake-up of whoever waits to join it: the
 *    kernel wakes them when it clears the thread's id word (clone's
 *    CLONE_CHILD_CLEARTID), after the thread has left Valgrind; they
 *    queue at the exit, and no turn starts before the word is clear, so a
 *    join finds the thread gone (or waits) the same way in every run.
 *  - While one thread exists, no turn ends: a single-threaded program
 *    runs exactly as without the option; a fork's child starts so.
 *
 * What still varies from run to run: when a thread comes back from a
 * system call that waits for real and was not ended by a futex wake-up
 * we saw (a read from a pipe, a sleep, a timed wait that times out):
 * while it is in the kernel, the others take as many turns as fit. And a
 * call taken as part of the turn that sleeps in the kernel for more than
 * BLOCKED_MS (20 ms) ends its turn.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_guest.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_vkiscnums.h"

/* The core's --fair-sched choice (coregrind's pub_core_options.h: an enum
 * no, yes, try in that order). Not in the tool headers, but tools link the
 * core statically; the scheduler reads it when it makes its lock, after
 * the tool's post_clo_init (coregrind/m_main.c, 3.19 to 3.2x). */
extern Int VG_(clo_fair_sched);
enum { FAIR_SCHED_NO, FAIR_SCHED_YES, FAIR_SCHED_TRY };

/* Blocks left in the running thread's turn: decremented by every block's
 * code, refilled by C when a thread starts running. Signed and 64 bits so
 * that "no turns" (one thread) is a value it never counts down from. */
#define NO_TURNS 0x7fffffffffffffffLL
static Long turn_left = NO_TURNS;
static ThreadId turn_owner = VG_INVALID_THREADID;
static Int live_threads = 1;

/* Threads whose turn ended and that have not run since, oldest first:
 * the order in which they get their next turns. A slot may be held for a
 * thread that a futex wake-up made runnable and that has not returned
 * from its wait yet (HELD). */
#define HELD VG_INVALID_THREADID
static ThreadId *waiting;           /* VG_N_THREADS entries */
static Int n_waiting;
static Bool *is_waiting;            /* by thread id */
static Bool *in_syscall;            /* by thread id: between pre and post */
/* Futex calls under way, by thread id: the word a thread waits on, and the
 * word a thread wakes the waiters of (0: none). */
static Addr *waits_on, *wakes_on;
static Int in_wakeups;              /* threads in a futex wake-up call now */
/* Threads whose wait returned while a wake-up call on its word was under
 * way: they queue when the waker's result comes, in the order they
 * returned. */
static ThreadId *woken_early;       /* VG_N_THREADS entries */
static Addr *woken_early_on;        /* the word each waited on */
static Int n_woken_early;
/* The threads a wake-up's result queues, by thread id (wakeup_done). */
static Bool *to_queue;
/* Where the kernel clears a thread's id once its OS thread has gone
 * (clone's child_tid under CLONE_CHILD_CLEARTID; 0: nowhere), by thread
 * id; the clone call each thread has under way; and the threads that
 * exited whose id the kernel has not cleared yet. pthread_join reads
 * that word: a turn starts only once it is clear, so that a join finds
 * the thread gone in every run, not only when the kernel was quick. */
static Addr *clears_at, *cloning_clears_at;
static Bool *exit_uncleared;
static Int n_exit_uncleared;
static ULong handovers_waited;      /* -v: yields to let the due thread in */
static ULong sleeps;                /* -v: and sleeps while it got a CPU */
static ULong gave_up;               /* -v: waits cut short (MAX_YIELDS) */
static ULong blocked_calls;         /* -v: turns ended by a call that blocked */
static ULong waits_watched;         /* -v: futex waits seen to sleep before a turn */
/* Each thread's OS thread id (0: not known yet), for its state in /proc
 * and the affinity calls pinning.c answers. */
static Int *lwp_of;
/* The thread whose futex wait ended the last turn, until its OS thread
 * sleeps in the kernel (VG_INVALID_THREADID: none). */
static ThreadId entering_wait;

/* In the child of a fork only the forking thread lives on: no turns, no
 * queue, nobody in a system call or a wake-up. */
static void forked_child(ThreadId tid)
{
   ThreadId t;
   live_threads = 1;
   n_waiting = n_woken_early = in_wakeups = n_exit_uncleared = 0;
   entering_wait = VG_INVALID_THREADID;
   handovers_waited = sleeps = gave_up = blocked_calls = waits_watched = 0;
   for (t = 0; t < VG_N_THREADS; t++) {
      lwp_of[t] = 0;
      is_waiting[t] = in_syscall[t] = exit_uncleared[t] = False;
      waits_on[t] = wakes_on[t] = 0;
   }
   turn_owner = tid;
   turn_left = NO_TURNS;
   cb_pin_forked_child(tid);
}

/* The turns serve the coherence model, and make the false sharing
 * estimate repeatable: its segments and happens-before edges follow the
 * order of the threads' synchronisation (who takes a lock first, who
 * reaches a barrier first, which thread's freed memory another gets),
 * which Valgrind's own schedule leaves to the kernel's timing. */
Bool cb_il_active(void)
{
   return (cb_clo.private_caches || cb_clo.sharing) && cb_clo.interleave > 0;
}

/* Is --fair-sched given among Valgrind's own arguments (command line,
 * VALGRIND_OPTS, .valgrindrc), and with which value? NULL if not. */
static const HChar *fair_sched_arg(void)
{
   const HChar *last = NULL;
   Word i, n = VG_(sizeXA)(VG_(args_for_valgrind));
   for (i = 0; i < n; i++) {
      const HChar *a = *(HChar **)VG_(indexXA)(VG_(args_for_valgrind), i);
      if (VG_(strncmp)(a, "--fair-sched=", 13) == 0) last = a;
   }
   return last;
}

/* A table of one zeroed element per thread id. */
static void *per_thread(SizeT elem)
{
   return VG_(calloc)("cb.il.threads", VG_N_THREADS, elem);
}

void cb_il_post_clo_init(void)
{
   const HChar *given;
   if (!cb_il_active()) return;
   given = fair_sched_arg();
   if (VG_(clo_fair_sched) == FAIR_SCHED_NO && given) {
      VG_(fmsg)("callgrind-bd: --interleave=%d needs --fair-sched=yes (threads take "
                "turns through the ticket lock), not %s; or give --interleave=0\n",
                cb_clo.interleave, given);
      VG_(exit)(1);
   }
   /* "try" falls back to the pipe lock only where futexes are missing;
    * ask for the ticket lock outright so that cannot happen silently */
   VG_(clo_fair_sched) = FAIR_SCHED_YES;
   VG_(atfork)(NULL, NULL, forked_child);
   waiting = per_thread(sizeof *waiting);
   is_waiting = per_thread(sizeof *is_waiting);
   woken_early = per_thread(sizeof *woken_early);
   woken_early_on = per_thread(sizeof *woken_early_on);
   to_queue = per_thread(sizeof *to_queue);
   waits_on = per_thread(sizeof *waits_on);
   wakes_on = per_thread(sizeof *wakes_on);
   in_syscall = per_thread(sizeof *in_syscall);
   clears_at = per_thread(sizeof *clears_at);
   cloning_clears_at = per_thread(sizeof *cloning_clears_at);
   exit_uncleared = per_thread(sizeof *exit_uncleared);
   lwp_of = per_thread(sizeof *lwp_of);
   cb_pin_post_clo_init();
}

/* At the start of every block: turn_left -= 1, and when it reaches zero
 * the event counter is zeroed, so the next block ends the time slice. The
 * counter is read back unchanged otherwise (an ITE, no branch). */
void cb_il_instrument(IRSB *sbOut)
{
   IRTypeEnv *env = sbOut->tyenv;
   IRExpr *where;
   Int evc = offsetof(VexGuestArchState, host_EvC_COUNTER);
   IRTemp old, left, over, ctr, next;

   if (!cb_il_active()) return;
   where = mkIRExpr_HWord((HWord)&turn_left);
   old = newIRTemp(env, Ity_I64);
   left = newIRTemp(env, Ity_I64);
   over = newIRTemp(env, Ity_I1);
   ctr = newIRTemp(env, Ity_I32);
   next = newIRTemp(env, Ity_I32);
   addStmtToIRSB(sbOut, IRStmt_WrTmp(old, IRExpr_Load(Iend_LE, Ity_I64, where)));
   addStmtToIRSB(sbOut, IRStmt_WrTmp(left, IRExpr_Binop(Iop_Sub64, IRExpr_RdTmp(old),
                                                        IRExpr_Const(IRConst_U64(1)))));
   addStmtToIRSB(sbOut, IRStmt_Store(Iend_LE, where, IRExpr_RdTmp(left)));
   addStmtToIRSB(sbOut, IRStmt_WrTmp(over, IRExpr_Binop(Iop_CmpLE64S, IRExpr_RdTmp(left),
                                                        IRExpr_Const(IRConst_U64(0)))));
   addStmtToIRSB(sbOut, IRStmt_WrTmp(ctr, IRExpr_Get(evc, Ity_I32)));
   addStmtToIRSB(sbOut, IRStmt_WrTmp(next, IRExpr_ITE(IRExpr_RdTmp(over),
                                                      IRExpr_Const(IRConst_U32(0)),
                                                      IRExpr_RdTmp(ctr))));
   addStmtToIRSB(sbOut, IRStmt_Put(evc, IRExpr_RdTmp(next)));
}


static void push(ThreadId tid)
{
   if (tid != HELD) {
      if (is_waiting[tid]) return;
      is_waiting[tid] = True;
   }
   waiting[n_waiting++] = tid;
}

static void remove_at(Int i)
{
   for (n_waiting--; i < n_waiting; i++) waiting[i] = waiting[i + 1];
}

static void leave_queue(ThreadId tid)
{
   Int i;
   if (!is_waiting[tid]) return;
   is_waiting[tid] = False;
   for (i = 0; waiting[i] != tid; i++) {}
   remove_at(i);
}

/* tid takes the first held slot; False if there is none. */
static Bool take_held_slot(ThreadId tid)
{
   Int i;
   for (i = 0; i < n_waiting; i++)
      if (waiting[i] == HELD) {
         waiting[i] = tid;
         is_waiting[tid] = True;
         return True;
      }
   return False;
}

static Bool is_woken_early(ThreadId tid)
{
   Int i;
   for (i = 0; i < n_woken_early; i++)
      if (woken_early[i] == tid) return True;
   return False;
}

static void forget_woken_early(ThreadId tid)
{
   Int i, j;
   for (i = j = 0; i < n_woken_early; i++)
      if (woken_early[i] != tid) {
         woken_early_on[j] = woken_early_on[i];
         woken_early[j++] = woken_early[i];
      }
   n_woken_early = j;
}

/* After a wait cut short: no held slot, and no thread that is in a system
 * call (a thread we counted on coming back that is blocked after all),
 * stays in the queue. */
static void drop_absent(void)
{
   Int i = 0;
   while (i < n_waiting) {
      ThreadId t = waiting[i];
      if (t != HELD && !in_syscall[t]) { i++; continue; }
      if (t != HELD) is_waiting[t] = False;
      remove_at(i);
   }
}

/* Ask the core to let other threads run: the lock is released, the OS
 * thread yields its CPU, and the lock is taken again (behind any thread
 * that asked meanwhile). */
extern void VG_(vg_yield)(void);

/* The due thread asks for the lock only when its OS thread runs. When it
 * waits for a CPU that other processes hold, sched_yield returns at once
 * and the yields would spin: sleep a millisecond (holding the lock, which
 * the due thread cannot take before it has a ticket anyway). */
#define MAX_YIELDS 20000
static void sleep_a_little(void)
{
   VG_(poll)(NULL, 0, 1);
   sleeps++;
}

/* A turn that ended puts its thread in the queue (a thread in a call
 * that waits for others has no turn: it queues when it comes back). The
 * next start begins a new turn. */
static void end_turn_if_used_up(void)
{
   if (turn_owner == VG_INVALID_THREADID || turn_left > 0) return;
   push(turn_owner);
   turn_owner = VG_INVALID_THREADID;
}

/* tid's turn comes when it is first in the queue, and no wake-up call is
 * under way (its result may hold slots ahead of tid). */
static Bool due(ThreadId tid)
{
   return n_waiting > 0 && waiting[0] == tid && in_wakeups == 0;
}

/* The core's mark of a thread that must go (another one ended the
 * process), and its flag of a thread inside generated code: neither is in
 * the tool headers, but tools link the core statically (3.19 to 3.2x). */
extern Bool VG_(is_exiting)(ThreadId tid);
extern Bool VG_(in_generated_code);

/* Another thread ended the process (an exit_group, a fatal signal)
 * while tid waited for its turn: tid must go without running another
 * block, as under the core's own schedule, which checks this mark before
 * it runs a thread (tid waited past that check). No turn is waited for
 * any more: a fault's thread waits inside generated code for tid to go,
 * an exit_group's inside its call. */
static Bool process_ends(ThreadId tid)
{
   return VG_(is_exiting)(tid);
}

/* Is the OS thread lwp asleep in the kernel ('S' in /proc: waiting for an
 * event, as a write to a full pipe or the open of a FIFO does)? */
static Bool os_thread_sleeps(Int lwp)
{
   HChar path[48], stat[160];
   const HChar *end;
   Int n;
   SysRes fd;
   VG_(sprintf)(path, "/proc/self/task/%d/stat", lwp);
   fd = VG_(open)(path, VKI_O_RDONLY, 0);
   if (sr_isError(fd)) return False;
   n = VG_(read)(sr_Res(fd), stat, sizeof stat - 1);
   VG_(close)(sr_Res(fd));
   if (n <= 0) return False;
   stat[n] = 0;
   end = VG_(strrchr)(stat, ')');     /* the name may hold anything */
   return end && end[1] == ' ' && end[2] == 'S';
}

/* The turn's owner is in a call taken as part of its turn (call_kind)
 * that has blocked after all: a write to a full pipe or socket, the open
 * of a FIFO -- what it waits for may be another thread's work. Once it
 * has slept for BLOCKED_MS its turn ends as if the call had been one that
 * waits (the owner queues when it comes back). Else the others would wait
 * for it until MAX_YIELDS (about a third of a second a call: a 1 MiB pipe
 * between two threads took 28 s). Not at once: a call that waits for
 * another process (a write to a pipe that `tee` drains) sleeps for a
 * moment and comes back by itself, and ending its turn then would make
 * the turns depend on that process's speed. A wait for one of our own
 * threads lasts until the turn ends, so the time does not decide it. */
#define BLOCKED_MS 20
static ThreadId asleep_owner;       /* the owner seen asleep, since when */
static UInt asleep_since;

static void end_turn_if_owner_blocked(void)
{
   ThreadId owner = turn_owner;
   UInt now;
   if (owner == VG_INVALID_THREADID || !in_syscall[owner] || lwp_of[owner] == 0
       || !os_thread_sleeps(lwp_of[owner])) {
      asleep_owner = VG_INVALID_THREADID;
      return;
   }
   now = VG_(read_millisecond_timer)();
   if (asleep_owner != owner) {
      asleep_owner = owner;
      asleep_since = now;
      return;
   }
   if (now - asleep_since < BLOCKED_MS) return;
   asleep_owner = VG_INVALID_THREADID;
   turn_owner = VG_INVALID_THREADID;
   blocked_calls++;
}

static Bool yield_while(Bool (*cond)(ThreadId), ThreadId tid);

/* Has the thread whose futex wait ended the last turn not reached its
 * sleep in the kernel yet (its call still under way, its OS thread not
 * asleep)? */
static Bool wait_not_entered(ThreadId tid)
{
   ThreadId w = entering_wait;
   (void)tid;
   return w != VG_INVALID_THREADID && in_syscall[w] && lwp_of[w] != 0
          && !os_thread_sleeps(lwp_of[w]);
}

/* A futex wait the tool judged to block (its word held the value) ended a
 * turn; the next turn may change the word. Had the waiter's OS thread not
 * reached the kernel's check by then, its wait would return EAGAIN at
 * once instead of sleeping and being woken, and glibc would run other
 * instructions (a barrier of two threads: Ir differed by 2 in 3 runs of
 * 10). So the next turn starts only once the waiter sleeps. Called while
 * tid is still at the head of the queue, so that no other thread takes
 * the turn while tid yields here. */
static void let_waiter_sleep(ThreadId tid)
{
   if (entering_wait == VG_INVALID_THREADID) return;
   if (entering_wait != tid) {
      yield_while(wait_not_entered, tid);
      waits_watched++;
   }
   entering_wait = VG_INVALID_THREADID;
}

/* Give the lock away until cond(tid) no longer holds (or MAX_YIELDS, or
 * the process ends). */
static Bool yield_while(Bool (*cond)(ThreadId), ThreadId tid)
{
   Int tries = 0;
   while (cond(tid) && !process_ends(tid)) {
      if (tries++ == MAX_YIELDS) { gave_up++; return False; }
      VG_(vg_yield)();
      handovers_waited++;
      end_turn_if_used_up();          /* the turns others had meanwhile */
      if (cond(tid) && tries % 16 == 0) end_turn_if_owner_blocked();
      if (cond(tid) && tries % 64 == 0) sleep_a_little();
   }
   return True;
}

/* tid must wait while another thread's turn runs (the core's time slice
 * ended inside it, or the owner is in a call that is part of its turn),
 * and then until it is first in the queue. */
static Bool must_wait(ThreadId tid)
{
   Bool others_turn = turn_owner != VG_INVALID_THREADID && turn_owner != tid;
   return others_turn || !due(tid);
}

/* The 32-bit word the client has at addr, read now (another thread or the
 * kernel may change it); False if addr is not readable client memory. */
static Bool client_word(Addr addr, UInt *value)
{
   if (!VG_(am_is_valid_for_client)(addr, sizeof(UInt), VKI_PROT_READ)) return False;
   *value = *(volatile const UInt *)addr;
   return True;
}

static void mark_exit_uncleared(ThreadId t, Bool uncleared)
{
   if (exit_uncleared[t] == uncleared) return;
   exit_uncleared[t] = uncleared;
   n_exit_uncleared += uncleared ? 1 : -1;
}

/* Has the kernel not yet cleared some exited thread's id word? (A word no
 * longer mapped counts as clear.) */
static Bool exit_not_cleared(ThreadId tid)
{
   ThreadId t;
   UInt id;
   for (t = 1; t < VG_N_THREADS && n_exit_uncleared > 0; t++)
      if (exit_uncleared[t] && !(client_word(clears_at[t], &id) && id != 0))
         mark_exit_uncleared(t, False);
   return n_exit_uncleared > 0;
}

static Bool early_and_wakeup_under_way(ThreadId tid)
{
   return in_wakeups > 0 && is_woken_early(tid);
}

/* A thread whose flag of generated code it cleared (go_without_running),
 * or none. */
static ThreadId borrowed_flag_of = VG_INVALID_THREADID;

/* The process ends while tid waited for its turn (process_ends): tid runs
 * no block. Its event counter is zeroed, so that the first block's check
 * sends it back to the scheduler, which sees the mark and lets it go.
 * After a fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL) in another thread, the
 * core handles it inside the faulting thread's generated code, whose flag
 * VG_(in_generated_code) stays set meanwhile, and waits there for tid to
 * go (VG_(reap_threads)); the core asserts the flag clear before tid
 * enters generated code. So tid then clears the flag, and sets it again
 * as it exits (cb_il_thread_exited), before the faulting thread resumes. */
static void go_without_running(ThreadId tid)
{
   UInt zero = 0;
   VG_(set_shadow_regs_area)(tid, 0, offsetof(VexGuestArchState, host_EvC_COUNTER),
                             sizeof zero, (const UChar *)&zero);
   if (!VG_(in_generated_code)) return;
   VG_(in_generated_code) = False;
   borrowed_flag_of = tid;
}

/* tid exits: the flag it borrowed goes back (go_without_running). */
static void give_back_flag(ThreadId tid)
{
   if (borrowed_flag_of != tid) return;
   VG_(in_generated_code) = True;
   borrowed_flag_of = VG_INVALID_THREADID;
}

/* The scheduler is about to run tid's code (after a slice ended, a system
 * call, a translation...). The running turn goes on; else tid queues and
 * starts a new turn when it is first.
 *
 * Why tid may have to wait although it holds the lock: the ticket lock
 * hands on in the order the threads asked, but a thread whose slice ended
 * asks again only when its OS thread runs, and the kernel may preempt it
 * between its release and its next ticket (to run the thread it woke, on
 * the same CPU). Then the lock would come back to the thread that just
 * had a turn, many turns in a row, differently in every run. And the
 * lock is released inside a turn too (the core's slice ends, a call that
 * is part of the turn): whether a queued thread got it then would depend
 * on whether its OS thread was running. So a thread whose turn is not
 * due, or that finds another thread's turn running, gives the lock away
 * (VG_(vg_yield): release, sched_yield, take a ticket) until the due
 * thread has had it. Queued threads and turn owners always come back
 * (they wait for the lock, or in a call that returns by itself); the
 * bound only keeps a thread killed with the process, a call that blocked
 * after all, or a wake-up whose wait we did not see return, from
 * stalling the run. */
void cb_il_thread_runs(ThreadId tid)
{
   if (!cb_il_active()) return;
   if (live_threads == 1) cb_pin_alone(tid);
   end_turn_if_used_up();
   if (tid == turn_owner) return;
   if (is_woken_early(tid)) {         /* its slot comes with the waker's result */
      yield_while(early_and_wakeup_under_way, tid);
      forget_woken_early(tid);
   }
   push(tid);
   if (!yield_while(must_wait, tid)) drop_absent();
   if (n_exit_uncleared > 0) yield_while(exit_not_cleared, tid);
   let_waiter_sleep(tid);             /* (at the queue's head: no other turn starts) */
   leave_queue(tid);
   if (process_ends(tid)) {
      go_without_running(tid);
      return;
   }
   turn_owner = tid;
   if (lwp_of[tid] == 0) lwp_of[tid] = VG_(gettid)();
   turn_left = live_threads > 1 ? (Long)cb_clo.interleave : NO_TURNS;
   if (live_threads > 1) cb_pin_turn_starts(tid);
}

Int cb_il_os_thread(ThreadId tid)
{
   return lwp_of ? lwp_of[tid] : 0;
}

/* The operation of a futex call (private and clock flags off), or ~0 for
 * any other system call. */
static UWord futex_op(UInt sysno, const UWord *args)
{
   if (sysno != __NR_futex) return ~(UWord)0;
   return args[1] & ~(UWord)(VKI_FUTEX_PRIVATE_FLAG | VKI_FUTEX_CLOCK_REALTIME);
}

static Bool is_wakeup(UWord op)
{
   return op == VKI_FUTEX_WAKE || op == VKI_FUTEX_WAKE_BITSET || op == VKI_FUTEX_WAKE_OP;
}

static Bool is_wait(UWord op)
{
   return op == VKI_FUTEX_WAIT || op == VKI_FUTEX_WAIT_BITSET;
}

/* System calls that wait for another thread, a child, a signal or the
 * clock, besides futex waits and reads from what is not a file; and those
 * after which the caller never runs on (the others must be let in to
 * die: the core reaps them before the process exits). */
static const UInt waiting_calls[] = {
   __NR_exit, __NR_exit_group, __NR_execve, __NR_execveat,
   __NR_nanosleep, __NR_clock_nanosleep, __NR_rt_sigsuspend, __NR_rt_sigtimedwait,
   __NR_wait4, __NR_waitid, __NR_pselect6, __NR_ppoll,
   __NR_epoll_pwait, __NR_accept, __NR_accept4, __NR_connect, __NR_recvfrom,
   __NR_recvmsg, __NR_recvmmsg, __NR_msgrcv, __NR_semop, __NR_semtimedop,
   __NR_mq_timedreceive, __NR_flock,
#if defined(__NR_pause)             /* not on arm64 */
   __NR_pause, __NR_select, __NR_poll, __NR_epoll_wait,
#endif
};

/* A read from a regular file or a disk comes back by itself; from a pipe,
 * a socket or a terminal it waits for whoever writes. */
static Bool reads_from_file(Int fd)
{
   struct vg_stat st;
   return VG_(fstat)(fd, &st) == 0 && (VKI_S_ISREG(st.mode) || VKI_S_ISBLK(st.mode));
}

/* What a system call does to its caller's turn. */
typedef enum {
   CALL_IN_TURN,        /* comes back by itself: part of the turn */
   CALL_YIELDS,         /* sched_yield: ends the turn, keeps a place in the queue */
   CALL_WAITS           /* waits for others: ends the turn, queues on return */
} CallKind;

/* A futex wait whose word no longer holds the value it expects returns at
 * once (EAGAIN): the kernel checks the word before it sleeps, and the
 * others cannot change it meanwhile (the caller's turn goes on). */
static Bool futex_wait_returns_at_once(const UWord *args)
{
   UInt now;
   return client_word(args[0], &now) && now != (UInt)args[2];
}

/* (op: the call's futex_op) */
static CallKind call_kind(UInt sysno, UWord op, const UWord *args)
{
   Int i;
   if (sysno == __NR_sched_yield) return CALL_YIELDS;
   if (sysno == __NR_futex) {
      if (is_wakeup(op) || (is_wait(op) && futex_wait_returns_at_once(args)))
         return CALL_IN_TURN;
      return CALL_WAITS;
   }
   if (sysno == __NR_read || sysno == __NR_readv)
      return reads_from_file((Int)args[0]) ? CALL_IN_TURN : CALL_WAITS;
   for (i = 0; i < (Int)(sizeof waiting_calls / sizeof waiting_calls[0]); i++)
      if (waiting_calls[i] == sysno) return CALL_WAITS;
   return CALL_IN_TURN;
}

/* Before tid's system call: the turn goes on, or ends here. */
static void call_starts(ThreadId tid, UInt sysno, UWord op, const UWord *args)
{
   CallKind kind;
   if (tid != turn_owner || live_threads == 1) return;
   kind = call_kind(sysno, op, args);
   if (kind == CALL_IN_TURN) return;
   turn_owner = VG_INVALID_THREADID;
   if (kind == CALL_YIELDS) push(tid);
   if (sysno == __NR_futex && is_wait(op)) entering_wait = tid;
}

/* The word a clone asks the kernel to clear when the child's OS thread
 * goes, or 0. (The child_tid argument is the fourth on amd64, the fifth
 * on x86, arm64 and ppc.) */
static Addr clone_child_tid(const UWord *args)
{
   if (!(args[0] & VKI_CLONE_CHILD_CLEARTID)) return 0;
#if defined(VGA_amd64)
   return args[3];
#else
   return args[4];
#endif
}

static Bool wakeup_under_way_on(Addr word)
{
   ThreadId t;
   for (t = 1; t < VG_N_THREADS; t++)
      if (wakes_on[t] == word) return True;
   return False;
}

/* Mark the threads whose wait on word returned while the wake-up was
 * under way; how many. */
static ULong mark_woken_early(Addr word)
{
   ULong marked = 0;
   Int i;
   for (i = 0; i < n_woken_early; i++)
      if (woken_early_on[i] == word && !to_queue[woken_early[i]]) {
         to_queue[woken_early[i]] = True;
         marked++;
      }
   return marked;
}

/* Mark the threads still in a wait on word; how many. */
static ULong mark_waiters(Addr word, Bool mark)
{
   ULong waiters = 0;
   ThreadId t;
   for (t = 1; t < VG_N_THREADS; t++)
      if (in_syscall[t] && waits_on[t] == word) {
         if (mark) to_queue[t] = True;
         waiters++;
      }
   return waiters;
}

/* Queue the marked threads, by thread id. */
static void push_marked(void)
{
   ThreadId t;
   for (t = 1; t < VG_N_THREADS; t++)
      if (to_queue[t]) {
         to_queue[t] = False;
         forget_woken_early(t);
         push(t);
      }
}

/* A wake-up call on word ended, asked to wake `asked` waiters (0: unknown)
 * and woke `woken`. The threads it woke queue now, by thread id: those
 * whose wait has returned already and, if it asked for all waiters, all
 * threads still in a wait on the word (they return at once: woken, or
 * finding the word changed); else one held slot after them for each
 * other thread woken. By id, not in the order the waits returned: with
 * two threads woken, which one the kernel lets out of its wait before the
 * waker's result comes is timing (an OpenMP team of three: the profile
 * differed in every run). */
static void wakeup_done(Addr word, ULong asked, ULong woken)
{
   ULong early = mark_woken_early(word);
   Bool all = asked > 0 && asked >= early + mark_waiters(word, False);
   if (all) mark_waiters(word, True);
   push_marked();
   if (all) return;
   for (; early < woken; early++) push(HELD);
}

/* A futex wait on word returned (woken, or the word had changed). */
static void wait_done(ThreadId tid, Addr word, Bool woken)
{
   if (is_waiting[tid]) return;             /* queued by its waker */
   if (woken && take_held_slot(tid)) return;
   if (wakeup_under_way_on(word)) {
      woken_early_on[n_woken_early] = word;
      woken_early[n_woken_early++] = tid;
   }
}

/* A call that waits for others ends the caller's turn (call_starts); the
 * caller is not waited for. But a thread that a futex wake-up made
 * runnable again comes back to the lock at a time the kernel chooses. So
 * the waker's result queues the threads it woke (wakeup_done), and while a
 * wake-up call is under way (the core runs futex calls without the lock,
 * so the woken may return before the waker does) no turn starts. A wake-up
 * never blocks. (res: NULL before the call.) */
void cb_il_syscall(ThreadId tid, UInt sysno, UWord *args, SysRes *res)
{
   Addr word;
   UWord op;
   if (!cb_il_active()) return;
   cb_pin_syscall(tid, sysno, args, res);
   in_syscall[tid] = res == NULL;
   op = futex_op(sysno, args);
   if (!res) {
      call_starts(tid, sysno, op, args);
      if (sysno == __NR_clone) cloning_clears_at[tid] = clone_child_tid(args);
   }
   if (is_wakeup(op)) {
      if (!res) {
         wakes_on[tid] = args[0];
         in_wakeups++;
         return;
      }
      word = wakes_on[tid];
      wakes_on[tid] = 0;
      in_wakeups--;
      /* (WAKE_OP's count is spread over two words: taken as unknown) */
      wakeup_done(word, op == VKI_FUTEX_WAKE_OP ? 0 : (ULong)(UInt)args[2],
                  sr_isError(*res) ? 0 : sr_Res(*res));
   } else if (is_wait(op)) {
      if (!res) {
         waits_on[tid] = args[0];
         return;
      }
      word = waits_on[tid];
      waits_on[tid] = 0;
      wait_done(tid, word, !sr_isError(*res));
   }
}

void cb_il_print_stats(void)
{
   if (cb_il_active())
      VG_(dmsg)("interleave: %llu yields and %llu sleeps to hand a turn to the thread due, "
                "%llu waits cut short, %llu turns ended by a call that blocked, "
                "%llu futex waits seen asleep before the next turn\n",
                handovers_waited, sleeps, gave_up, blocked_calls, waits_watched);
}

/* A second thread makes turns count. The child queues at once, and its
 * creator right behind it: when the child first asks for the lock depends
 * on when the kernel starts it, and the core makes the creator yield
 * after the clone (which may keep it off the lock for as long as the
 * kernel pleases); their places in the order do not. (The main thread is
 * "created" too, by nobody, before it runs.) */
void cb_il_thread_created(ThreadId parent, ThreadId child)
{
   if (parent == VG_INVALID_THREADID) return;
   live_threads++;
   if (!cb_il_active()) return;
   cb_pin_thread_created(parent, child);
   clears_at[child] = cloning_clears_at[parent];
   mark_exit_uncleared(child, False);  /* the id's last thread: gone now */
   push(child);
   push(parent);
   if (turn_owner == parent) turn_owner = VG_INVALID_THREADID;
}

void cb_il_thread_exited(ThreadId tid)
{
   if (cb_il_active()) {
      give_back_flag(tid);
      lwp_of[tid] = 0;                 /* (the id's next thread has its own) */
      cb_pin_thread_exited(tid);
      leave_queue(tid);
      forget_woken_early(tid);
      waits_on[tid] = wakes_on[tid] = 0;
      if (clears_at[tid] && !exit_uncleared[tid]) {
         mark_exit_uncleared(tid, True);
         /* the kernel wakes whoever waits on the word (a join) when it
          * clears it: they queue now, as after a wake-up call */
         wakeup_done(clears_at[tid], VG_N_THREADS, 0);
      }
   }
   if (turn_owner == tid) turn_owner = VG_INVALID_THREADID;
   if (live_threads > 1) live_threads--;
   if (live_threads == 1) turn_left = NO_TURNS;
}

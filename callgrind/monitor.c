/* callgrind-bd: monitor commands, sent to a running program through
 * Valgrind's gdbserver (`vgdb --pid=N <command>`, or `monitor <command>`
 * in gdb, or the callgrind-bd_control script).
 *
 * The commands and their output are the reference Callgrind's, so that
 * scripts written for it keep working:
 *   help                      the list below
 *   dump [<hint>]             write a part now; its trigger is the command
 *   zero                      zero all costs
 *   status                    "N thread(s) running."
 *   status internal           key: value lines read by the control script
 *   instrumentation [on|off]  show or switch instrumentation
 * A command word may be abbreviated to any unique prefix.
 *
 * Each action takes the same path as its client request (dump.c, instrument.c),
 * so back-dated costs get the same treatment whichever way a dump, a zero
 * or a switch of instrumentation is asked for. Commands act on all
 * threads, as the reference's do: the gdbserver may call in while every
 * thread sits in a system call, with no thread running.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "pub_tool_gdbserver.h"

static void print_help(void)
{
   VG_(gdb_printf)("\n");
   VG_(gdb_printf)("callgrind-bd monitor commands:\n");
   VG_(gdb_printf)("  dump [<dump_hint>]\n");
   VG_(gdb_printf)("        dump counters\n");
   VG_(gdb_printf)("  zero\n");
   VG_(gdb_printf)("        zero counters\n");
   VG_(gdb_printf)("  status\n");
   VG_(gdb_printf)("        print status\n");
   VG_(gdb_printf)("  instrumentation [on|off]\n");
   VG_(gdb_printf)("        get/set (if on/off given) instrumentation state\n");
   VG_(gdb_printf)("\n");
}

/* A cost as written in a profile: values separated by a space, trailing
 * zeros left out, the first value always present. */
static void print_cost(const ULong *c)
{
   Int last = 0, i;
   for (i = 0; i < cb_n_events; i++)
      if (c[i]) last = i;
   for (i = 0; i <= last; i++)
      VG_(gdb_printf)(i ? " %llu" : "%llu", c[i]);
}

static void print_event_names(void)
{
   Int i;
   for (i = 0; i < cb_n_events; i++)
      VG_(gdb_printf)(i ? " %s" : "%s", cb_ev_name[cb_ev_at[i]]);
}

/* Costs since the last dump of a thread, as its next part's summary will
 * count them (signal handlers that returned included). */
static void thread_cost_since_dump(const thread_info *t, ULong *sum)
{
   cb_zero_cost(sum);
   cb_add_diff_cost(sum, t->lastdump_cost, t->states[0]->cost);
   cb_add_cost(sum, t->sighandler_cost);
}

static const HChar *fn_name_of(const BBCC *bbcc)
{
   return bbcc->cxt ? bbcc->cxt->fn[0]->name : "???";
}

/* Back-dated costs known so far (lines that have left the cache) of
 * every frame of t and of the whole thread: per execution state, its
 * tree's chain matched against the frames that entered a node, in order.
 * frame_known holds cb_n_events costs per frame (zero where nothing is
 * known), total the thread's. */
static void known_so_far(const thread_info *t, ULong *frame_known, ULong *total)
{
   Int s, i, n = t->calls.sp, levels, level;
   void **arcs = CB_MALLOC("cb.mon.arcs", (SizeT)(n + 1) * sizeof *arcs);
   ULong *known = CB_MALLOC("cb.mon.known", (SizeT)(n + 1) * cb_n_events * sizeof(ULong));
   VG_(memset)(frame_known, 0, (SizeT)n * cb_n_events * sizeof(ULong));
   cb_zero_cost(total);
   for (s = 0; s <= t->states_sp; s++) {
      const exec_state *es = t->states[s];
      Int end = s < t->states_sp && t->states[s + 1] ? t->states[s + 1]->call_stack_bottom : n;
      if (!es) continue;
      levels = cb_bd_known_so_far(es, arcs, known, n + 1);
      if (levels > 0) cb_add_cost(total, known);          /* the root's subtree */
      level = 1;
      for (i = es->call_stack_bottom; i < end && level < levels; i++) {
         const call_entry *ce = &t->calls.entry[i];
         if (!ce->bd_pushed || !ce->jcc) continue;
         if (arcs[level] != ce->jcc) break;               /* out of step: stop */
         cb_add_cost(frame_known + (SizeT)i * cb_n_events, known + (SizeT)level * cb_n_events);
         level++;
      }
   }
   CB_FREE(known);
   CB_FREE(arcs);
}

/* One thread of "status internal": its costs, then its call stack from
 * the bottom: each frame names the calling function, the arc's call count
 * and the arc's inclusive cost so far; the last line names the function
 * running now. Back-dated events (AcCost, SpLoss, L1ldB, LLldB) show
 * what is known so far: of the lines loaded under the frame (or in the
 * thread), those that have left the cache. Called with t current
 * (cb_forall_threads). */
static void print_thread_state(thread_info *t)
{
   ULong cost[cb_n_events], known_total[cb_n_events];
   ULong *frame_known = CB_MALLOC("cb.mon.frames",
                                  (SizeT)(t->calls.sp + 1) * cb_n_events * sizeof(ULong));
   const call_entry *ce = NULL;
   Int tid = (Int)t->tid, i;

   known_so_far(t, frame_known, known_total);
   thread_cost_since_dump(t, cost);
   cb_add_cost(cost, known_total);
   VG_(gdb_printf)("events-%d: ", tid);
   print_cost(cost);
   VG_(gdb_printf)("\n");
   VG_(gdb_printf)("frames-%d: %d\n", tid, t->calls.sp);

   for (i = 0; i < t->calls.sp; i++) {
      ce = &t->calls.entry[i];
      if (!ce->jcc) continue;         /* a skipped function: no arc */
      VG_(gdb_printf)("function-%d-%d: %s\n", tid, i, fn_name_of(ce->jcc->from));
      VG_(gdb_printf)("calls-%d-%d: %llu\n", tid, i, ce->jcc->call_counter);
      cb_copy_cost(cost, ce->jcc->cost);
      cb_add_diff_cost(cost, ce->enter_cost, cb_frame_state(t, i)->cost);
      cb_add_cost(cost, frame_known + (SizeT)i * cb_n_events);
      VG_(gdb_printf)("events-%d-%d: ", tid, i);
      print_cost(cost);
      VG_(gdb_printf)("\n");
   }
   if (ce && ce->jcc)
      VG_(gdb_printf)("function-%d-%d: %s\n", tid, i, fn_name_of(ce->jcc->to));
   CB_FREE(frame_known);
}

static void print_status_internal(void)
{
   thread_info **ts = cb_get_threads();
   ThreadId t;

   VG_(gdb_printf)("instrumentation: %s\n", cb_instrument_state ? "on" : "off");
   if (!cb_instrument_state) return;
   VG_(gdb_printf)("executed-bbs: %llu\n", cb_stat.bb_executions);
   VG_(gdb_printf)("executed-calls: %llu\n", cb_stat.call_counter);
   VG_(gdb_printf)("distinct-bbs: %llu\n", cb_stat.distinct_bbs);
   VG_(gdb_printf)("distinct-calls: %llu\n", cb_stat.distinct_jccs);
   VG_(gdb_printf)("distinct-functions: %llu\n", (ULong)cb_distinct_fns);
   VG_(gdb_printf)("distinct-contexts: %llu\n", cb_stat.distinct_contexts);
   VG_(gdb_printf)("events: ");
   print_event_names();
   VG_(gdb_printf)("\n");
   /* the number of the last part written: 0 before the first dump */
   VG_(gdb_printf)("part: %d\n", cb_out_counter - 1);
   VG_(gdb_printf)("threads:");
   for (t = 1; t < VG_N_THREADS; t++)
      if (ts[t]) VG_(gdb_printf)(" %u", t);
   VG_(gdb_printf)("\n");
   VG_(gdb_printf)("current-tid: %u\n", cb_cur.tid);
   cb_forall_threads(print_thread_state);
}

static void print_status(void)
{
   thread_info **ts = cb_get_threads();
   Int t, running = 0;
   if (!cb_instrument_state) {
      VG_(gdb_printf)("No status available as instrumentation is switched off\n");
      return;
   }
   for (t = 1; t < VG_N_THREADS; t++)
      if (ts[t]) running++;
   VG_(gdb_printf)("%d thread(s) running.\n", running);
}

/* "instrumentation": without an argument show the state; any argument
 * other than "off" switches it on, as in the reference. */
static void instrumentation_command(const HChar *arg)
{
   if (!arg)
      VG_(gdb_printf)("instrumentation: %s\n", cb_instrument_state ? "on" : "off");
   else
      cb_set_instrument_state("Command", VG_(strcmp)(arg, "off") != 0);
}

/* Returns whether req is one of ours. Valgrind's own commands (v.*) reach
 * every tool too, and "help" is both: the core prints its part first. */
Bool cb_handle_gdb_monitor_command(ThreadId tid, HChar *req)
{
   HChar copy[VG_(strlen)(req) + 1];
   HChar *save, *word, *arg;

   VG_(strcpy)(copy, req);
   word = VG_(strtok_r)(copy, " ", &save);
   switch (VG_(keyword_id)("help dump zero status instrumentation", word,
                           kwd_report_duplicated_matches)) {
   case -2: /* ambiguous: keyword_id has said so */
      return True;
   case -1:
      return False;
   case 0:
      print_help();
      return True;
   case 1: /* the whole command line is the trigger: "dump <hint>" */
      cb_dump_profile(req, False);
      return True;
   case 2:
      cb_zero_all_cost(False);
      return True;
   case 3:
      arg = VG_(strtok_r)(NULL, " ", &save);
      if (arg && VG_(strcmp)(arg, "internal") == 0) print_status_internal();
      else print_status();
      return True;
   case 4:
      instrumentation_command(VG_(strtok_r)(NULL, " ", &save));
      return True;
   default:
      tl_assert(0);
      return False;
   }
}

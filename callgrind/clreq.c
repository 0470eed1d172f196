/* callgrind-bd: client requests of <valgrind/callgrind.h> and switching
 * instrumentation.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "callgrind.h"

void cb_clreq_init(void) {}

/* Pop every frame and signal handler of a thread: with instrumentation
 * switched, no call seen so far will be seen returning. */
static void unwind_thread(thread_info *t)
{
   while (cb_cur.sig != 0) cb_post_signal(cb_cur.tid, cb_cur.sig);
   while (cb_calls->sp > 0) cb_pop_call_stack();
   cb_cur.collect = cb_clo.collect_atstart;
   cb_cur.cxt = NULL;
   cb_cur.jmps_passed = 0;
   cb_cur.bbcc = NULL;
   cb_cur.nonskipped = NULL;
   cb_fns->top = cb_fns->bottom;
}

void cb_set_instrument_state(const HChar *reason, Bool state)
{
   if (cb_instrument_state == state) return;
   cb_instrument_state = state;
   VG_(discard_translations_safely)((Addr)0x1000, ~(SizeT)0xfff, "callgrind-bd");
   /* Unlike the reference, the running counters are not zeroed: the
    * costs counted before the switch are still in their cost centres and
    * will be written, so summary: stays equal to totals:. */
   cb_forall_threads(unwind_thread);
   cb_forall_threads(cb_mark_stacks_emptied);
   cb_sim_clear();
   if (VG_(clo_verbosity) > 1)
      VG_(message)(Vg_DebugMsg, "%s: instrumentation switched %s\n",
                   reason, state ? "ON" : "OFF");
}

Bool cb_handle_client_request(ThreadId tid, UWord *args, UWord *ret)
{
   static Bool warned;
   if (args[0] == VG_USERREQ__GDB_MONITOR_COMMAND) {   /* monitor.c */
      *ret = cb_handle_gdb_monitor_command(tid, (HChar *)args[1]);
      return (Bool)*ret;
   }
   if (!VG_IS_TOOL_USERREQ('C', 'T', args[0])) return False;
   cb_switch_thread(tid);

   switch (args[0]) {
   case VG_USERREQ__DUMP_STATS:
      cb_dump_profile("Client Request", True);
      break;
   case VG_USERREQ__DUMP_STATS_AT: {
      const HChar *s = (const HChar *)args[1];
      HChar buf[512];
      VG_(snprintf)(buf, sizeof buf, "Client Request: %s", s ? s : "");
      cb_dump_profile(buf, True);
      break;
   }
   case VG_USERREQ__ZERO_STATS:
      cb_zero_all_cost(True);
      break;
   case VG_USERREQ__TOGGLE_COLLECT:
      cb_cur.collect = !cb_cur.collect;
      break;
   case VG_USERREQ__START_INSTRUMENTATION:
      cb_set_instrument_state("Client Request", True);
      break;
   case VG_USERREQ__STOP_INSTRUMENTATION:
      cb_set_instrument_state("Client Request", False);
      break;
   default:
      if (!warned) {
         warned = True;
         VG_(message)(Vg_UserMsg, "Warning: unknown callgrind client request code %#lx\n", args[0]);
      }
      return False;
   }
   *ret = 0;
   return True;
}

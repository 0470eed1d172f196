/* callgrind-bd: the client requests of <valgrind/callgrind.h> and of our
 * <valgrind/callgrind-bd.h> (CALLGRIND_BD_SEGMENT_END: falseshare.c). Each takes
 * the same path as the monitor command doing the same (monitor.c): dumps
 * and zeroing in dump.c, switching instrumentation in instrument.c.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "callgrind.h"
#include "callgrind-bd.h"       /* include/valgrind/: our own requests */

Bool cb_handle_client_request(ThreadId tid, UWord *args, UWord *ret)
{
   static Bool warned;
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
   case VG_USERREQ__CALLGRIND_BD_SEGMENT_END:
      if (cb_fs_model) cb_fs_end_segment();       /* --sharing=yes */
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

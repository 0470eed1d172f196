/*
** callgrind-bd.h -- client requests of callgrind-bd beyond those of
** <valgrind/callgrind.h> (which keeps working unchanged: include both).
**
**   CALLGRIND_BD_SEGMENT_END;
**      Ends the current parallel segment of --sharing=yes: accesses
**      before and after it are never paired as possible false sharing.
**      Use it where all threads are synchronized by something the tool
**      does not recognise as a barrier (its own list: libgomp barriers and
**      parallel regions, pthread_barrier_wait), from ONE thread, e.g.
**      right after a hand-made barrier in the thread that leaves it first
**      or inside "#pragma omp single".  Without --sharing=yes, and when
**      not running under callgrind-bd, it does nothing.
**
** Installed as <valgrind/callgrind-bd.h>; needs <valgrind/valgrind.h>.
** Copyright (C) 2026 the callgrind-bd authors.  BSD-style licence as
** valgrind.h, so that it may be included in programs of any licence.
*/
#ifndef __CALLGRIND_BD_H
#define __CALLGRIND_BD_H

#include <valgrind/valgrind.h>

/* After Callgrind's own request codes ('C','T' + 0..5), with room left
   for Callgrind to add more. */
typedef enum {
   VG_USERREQ__CALLGRIND_BD_SEGMENT_END = VG_USERREQ_TOOL_BASE('C', 'T') + 0x100
} Vg_CallgrindBdClientRequest;

#define CALLGRIND_BD_SEGMENT_END                                        \
   VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__CALLGRIND_BD_SEGMENT_END, \
                                   0, 0, 0, 0, 0)

#endif /* __CALLGRIND_BD_H */

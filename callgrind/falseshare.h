/* callgrind-bd: --sharing=yes -- what the rest of the tool calls
 * (falseshare.c: the run side; falseshare_report.c: the reports).
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#ifndef CB_FALSESHARE_H
#define CB_FALSESHARE_H

#include "global.h"
#include "sharing.h"

/* fn_node.sharing_cut: where a function ends a parallel segment */
#define FS_CUT_AT_ENTRY 1u
#define FS_CUT_AT_EXIT  2u

/* --sharing-penalty's default: perf/sharing-penalty.c's median on the
 * development machine (docs/manual.md, "Measuring the penalty") */
#define FS_DEFAULT_PENALTY 10

/* The data a shared line holds, named when it first became shared. */
typedef struct {
   const HChar *group;    /* "[heap]", "[static]" or "[other]" */
   const HChar *name;     /* as the objects profile names objects */
   const HChar *file;     /* heap: allocating call's position, or NULL */
   UInt line;
} cb_fs_data;

extern sh_model *cb_fs_model;     /* NULL unless --sharing=yes */

UInt cb_fs_fn_kind(const HChar *name);           /* FS_CUT_* of a function */
void cb_fs_fn_entered(const fn_node *fn);        /* first entry (callstack.c) */
void cb_fs_fn_left(const fn_node *fn);           /* last exit */
void cb_fs_end_segment(void);                    /* barrier or client request */
void cb_fs_post_clo_init(UInt line_size);
void cb_fs_fini(void);
void cb_fs_write_reports(void);                  /* falseshare_report.c */

/* A data access while collecting (sim.c), instr = the accessing
 * instruction's address. */
static inline void cb_fs_access(Addr instr, Addr a, UWord size, Bool is_write)
{
   sh_access(cb_fs_model, cb_cur.tid, a, (UInt)size, is_write, instr);
}

/* A read-modify-write (one Dw access in the profile): a load and a store,
 * as the thesis counts it. */
static inline void cb_fs_modify(Addr instr, Addr a, UWord size)
{
   sh_modify(cb_fs_model, cb_cur.tid, a, (UInt)size, instr);
}

#endif

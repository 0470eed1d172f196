/* callgrind-bd: --sharing=yes -- what falseshare.c and falseshare_report.c
 * share between them (the rest of the tool sees global.h's section
 * "falseshare.c").
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#ifndef CB_FALSESHARE_H
#define CB_FALSESHARE_H

#include "global.h"

/* The data a shared line holds, named when a second thread first touched
 * it (or at the end of the segment where it was first shared). */
typedef struct {
   const HChar *group;    /* "[heap]", "[static]" or "[other]" */
   const HChar *name;     /* as the objects profile names objects (a line
                             holding several: up to three, " + ") */
   const HChar *object;   /* the first of them: the object the line is
                             counted to when objects are ranked */
   const HChar *file;     /* heap: allocating call's position, or NULL */
   UInt line;
} cb_fs_data;

#endif

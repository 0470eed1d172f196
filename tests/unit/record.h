/*
** record.h -- the recording cache-use hooks shared by the native unit
** tests (test_cachesim, test_l2pf).
**
** on_load and on_evict append an event to ev[]: kind 'L' (load) or 'E'
** (eviction), the level, the owner (its slot pointer as a number) and,
** for an eviction, its AcCost and SpLoss. ev[] keeps the first EV_CAP
** events (record() is how a test's own hooks append); n_load and
** n_evict count every load and eviction, also beyond EV_CAP.
*/
#ifndef UNIT_RECORD_H
#define UNIT_RECORD_H

#include <stdint.h>
#include "cachesim.h"

#define EV_CAP 4096

typedef struct { char kind; int level; long owner; uint32_t ac, sp; } event;
static event ev[EV_CAP];
static int n_ev, n_load, n_evict;

static void record(event e)
{
   if (n_ev < EV_CAP)
      ev[n_ev++] = e;
}

static void on_load(void *ctx, int level, const cs_owner *o)
{
   (void)ctx;
   record((event){ 'L', level, (long)(uintptr_t)o->slot, 0, 0 });
   n_load++;
}

static void on_evict(void *ctx, int level, const cs_owner *o, uint32_t ac,
                     uint32_t sp)
{
   (void)ctx;
   record((event){ 'E', level, (long)(uintptr_t)o->slot, ac, sp });
   n_evict++;
}

#endif

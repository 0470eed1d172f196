/* callgrind-bd: data objects -- parts: what a dump of the profile writes
 * of the object costs, and what it and a zero reset.
 *
 * Model. Every dump writes the object costs gathered since the previous
 * dump or zero (objects_dump.c) and starts them again from zero, as the
 * profile does with its cost centres. Back-dated costs (AcCost, SpLoss)
 * reach a cell when its line leaves the cache, so they belong to the part
 * in which the line left: the profile's self cost of the loading
 * instruction gets them then, as its back-dating node delivers them to
 * the arcs at the next dump. A zero makes resident lines forget their
 * owner (cb_sim_zero), cell included: their metrics are never written.
 *
 * The one subtle case is a cost centre none of whose blocks completed
 * (while collecting) since the last dump, "idle": the block running at
 * the dump, or one whose exit came while collection was off. It keeps
 * its immediate costs for a later part (dump.c, backdated_only), while
 * the running counter, hence the inclusive cost of the frames around it,
 * had them at the access. Its cells are *held*: their immediate costs reach this
 * part's arcs but not its self costs, and stay in the cell; in the next
 * part they are *carried*: self costs (and the arc into the object) but
 * not the arcs above, which had them already. A zero holds the same
 * costs (the profile's zero keeps an idle cost centre's immediate costs
 * too) and carries them into the next part.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "objects_int.h"
#include "pub_tool_xarray.h"

/* Immediate events come first in the object events. */
#define OE_IMMEDIATE (OE_Inv + 1)

typedef struct { cb_cell *cell; ULong cost[OE_IMMEDIATE]; } cost_rec;

static XArray *held;       /* of cost_rec: found by find_held */
static XArray *carried;    /* of cost_rec: held at the last dump or zero */

static void init_lists(void)
{
   if (held) return;
   held = VG_(newXA)(VG_(malloc), "cb.obj.held", VG_(free), sizeof(cost_rec));
   carried = VG_(newXA)(VG_(malloc), "cb.obj.carried", VG_(free), sizeof(cost_rec));
}

static const cost_rec *rec_of(XArray *list, const cb_cell *c)
{
   Word i, n = list ? VG_(sizeXA)(list) : 0;
   for (i = 0; i < n; i++) {
      const cost_rec *r = VG_(indexXA)(list, i);
      if (r->cell == c) return r;
   }
   return NULL;
}

ULong cb_obj_held_cost(const cb_cell *c, Int e)
{
   const cost_rec *r;
   if (!c->held || e >= OE_IMMEDIATE) return 0;
   r = rec_of(held, c);
   return r ? r->cost[e] : 0;
}

ULong cb_obj_carried_cost(const cb_cell *c, Int e)
{
   const cost_rec *r;
   if (!c->carried || e >= OE_IMMEDIATE) return 0;
   r = rec_of(carried, c);
   return r ? r->cost[e] : 0;
}

Bool cb_obj_in_part(const cb_cell *c, const thread_info *only)
{
   return !only || !cb_obj_thread_roots || c->tid == only->tid;
}

/*------------------------------------------------------------*/
/*--- Held cells: those of idle cost centres               ---*/
/*------------------------------------------------------------*/

static Bool idle(const BBCC *b)
{
   return b->ecounter_sum == 0 && b->ret_counter == 0;
}

static Bool has_immediate(const cb_cell *c)
{
   Int e;
   for (e = 0; e < OE_IMMEDIATE; e++) if (c->cost[e]) return True;
   return False;
}

/* Immediate costs of an idle cost centre are those of executions that
 * did not complete while collecting (the running block; a block whose
 * exit came with collection off), as are then all of its cells'. */
static Bool waits(const cb_cell *c)
{
   return !c->arcs_only && c->ii && c->bbcc && !c->skipped && idle(c->bbcc)
          && has_immediate(c);
}

static void clear_held(void)
{
   Word i;
   for (i = 0; i < VG_(sizeXA)(held); i++)
      ((cost_rec *)VG_(indexXA)(held, i))->cell->held = False;
   VG_(dropTailXA)(held, VG_(sizeXA)(held));
}

/* Which cells of the part wait; before the profile resets its cost
 * centres' execution counts. */
void cb_obj_find_held(thread_info *only)
{
   cb_obj *o;
   cb_cell *c;
   init_lists();
   clear_held();
   for (o = cb_obj_list; o; o = o->next_all)
      for (c = o->cells; c; c = c->next_of_obj) {
         cost_rec r;
         if (!cb_obj_in_part(c, only) || !waits(c)) continue;
         r.cell = c;
         VG_(memcpy)(r.cost, c->cost, sizeof r.cost);
         VG_(addToXA)(held, &r);
         c->held = True;
      }
}

/*------------------------------------------------------------*/
/*--- Histograms                                           ---*/
/*------------------------------------------------------------*/

/* Held costs out of the histogram: at the granule of the cell's last
 * access (a held cell made one execution's accesses, mostly one), the
 * rest from any granule, so that the object's sum stays exact. */
static void hist_take(cb_obj *o, UInt gran, Int e, ULong n)
{
   UInt g;
   ULong *h = &o->hist[(SizeT)gran * OE_COUNT + e];
   ULong take = *h < n ? *h : n;
   *h -= take;
   n -= take;
   for (g = 0; n > 0 && g < o->hist_n; g++) {
      h = &o->hist[(SizeT)g * OE_COUNT + e];
      take = *h < n ? *h : n;
      *h -= take;
      n -= take;
   }
}

static UInt last_granule(const cb_cell *c)
{
   return cb_obj_granule(c->obj, (Addr)c->last_off << CB_OBJ_OFF_SHIFT);
}

/* sign > 0: put the held costs back, else take them out. */
static void hist_held(Int sign)
{
   Word i;
   Int e;
   if (!cb_obj_hist) return;
   for (i = 0; i < VG_(sizeXA)(held); i++) {
      const cost_rec *r = VG_(indexXA)(held, i);
      cb_obj *o = r->cell->obj;
      UInt g;
      if (!o->hist) continue;
      g = last_granule(r->cell);
      for (e = 0; e < OE_IMMEDIATE; e++) {
         if (!r->cost[e]) continue;
         if (sign > 0) o->hist[(SizeT)g * OE_COUNT + e] += r->cost[e];
         else hist_take(o, g, e, r->cost[e]);
      }
   }
}

/* Before writing: histograms hold only what this part writes. */
void cb_obj_hist_without_held(void) { hist_held(-1); }

/*------------------------------------------------------------*/
/*--- Starting a new part                                  ---*/
/*------------------------------------------------------------*/

static void reset_cell(cb_cell *c)
{
   const cost_rec *r = c->held ? rec_of(held, c) : NULL;
   Int e;
   for (e = 0; e < OE_COUNT; e++)
      c->cost[e] = (r && e < OE_IMMEDIATE) ? r->cost[e] : 0;
}

/* Carried records of cells outside the part stay; the held ones of the
 * part become the carried ones. */
static void carry_held(const thread_info *only)
{
   XArray *next = VG_(newXA)(VG_(malloc), "cb.obj.carried", VG_(free), sizeof(cost_rec));
   Word i;
   for (i = 0; i < VG_(sizeXA)(carried); i++) {
      cost_rec *r = VG_(indexXA)(carried, i);
      if (cb_obj_in_part(r->cell, only)) r->cell->carried = False;
      else VG_(addToXA)(next, r);
   }
   for (i = 0; i < VG_(sizeXA)(held); i++) {
      cost_rec *r = VG_(indexXA)(held, i);
      r->cell->carried = True;
      VG_(addToXA)(next, r);
   }
   VG_(deleteXA)(carried);
   carried = next;
}

/* The part's chains start again from zero: what cells hold reached the
 * arcs of this part. */
static void zero_chains(const thread_info *only)
{
   cb_chain *ch;
   for (ch = cb_obj_chains; ch; ch = ch->next_all)
      if (!only || !cb_obj_thread_roots || ch->tid == only->tid)
         VG_(memset)(ch->incl, 0, sizeof ch->incl);
   VG_(memset)(cb_obj_root_chain->incl, 0, sizeof cb_obj_root_chain->incl);
   if (cb_obj_thread_roots) {
      Int t;
      for (t = 0; t < VG_N_THREADS; t++)
         if (cb_obj_thread_roots[t] && (!only || t == only->tid))
            VG_(memset)(cb_obj_thread_roots[t]->incl, 0, sizeof cb_obj_thread_roots[t]->incl);
   }
}

/* The part's cells start again from what they hold; histograms too
 * (they exist only without --separate-threads: the part is all). */
void cb_obj_start_part(thread_info *only)
{
   cb_obj *o;
   cb_cell *c;
   zero_chains(only);
   for (o = cb_obj_list; o; o = o->next_all) {
      for (c = o->cells; c; c = c->next_of_obj)
         if (cb_obj_in_part(c, only)) reset_cell(c);
      if (o->hist) VG_(memset)(o->hist, 0, (SizeT)o->hist_n * OE_COUNT * sizeof(ULong));
   }
   hist_held(+1);
   carry_held(only);
   clear_held();
}

/* ZERO_STATS, --zero-before, the zero monitor command (dump.c). */
void cb_obj_zero(thread_info *only)
{
   if (!cb_clo.objects) return;
   cb_obj_find_held(only);
   cb_obj_start_part(only);
}

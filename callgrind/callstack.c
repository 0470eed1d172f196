/* callgrind-bd: the shadow call stack and the function stack of a thread.
 *
 * The function stack mirrors the call stack with the function of each
 * frame (a 0 entry separates a signal handler from what it interrupted);
 * its top functions make the current context (context.c).
 *
 * Each frame remembers the call arc it entered (NULL when the callee is a
 * skipped function), the guest stack pointer after the call, the return
 * address, and the running counter at entry. Leaving a frame adds the
 * counter's growth to the arc: exact inclusive costs for every event
 * counted at the moment it happens. Back-dated events take the tree path:
 * every frame with an arc also enters a node of the back-dating tree.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "objects.h"
#include "paths.h"

void cb_init_call_stack(call_stack *cs)
{
   Int i;
   cs->size = 64;
   cs->sp = 0;
   cs->entry = cb_mem_alloc(CB_MEM_STACKS, "cb.callstack", cs->size * sizeof(call_entry));
   VG_(memset)(cs->entry, 0, cs->size * sizeof(call_entry));
   for (i = 0; i < cs->size; i++) cs->entry[i].cxt = NULL;
}

void cb_ensure_call_stack(Int needed_sp)
{
   Int old = cb_calls->size;
   if (needed_sp < old) return;
   while (cb_calls->size <= needed_sp) cb_calls->size *= 2;
   cb_calls->entry = cb_mem_realloc(CB_MEM_STACKS, "cb.callstack", cb_calls->entry,
                                    old * sizeof(call_entry),
                                    cb_calls->size * sizeof(call_entry));
   VG_(memset)(cb_calls->entry + old, 0, (cb_calls->size - old) * sizeof(call_entry));
}

void cb_init_fn_stack(fn_stack *fs)
{
   fs->size = 64;
   fs->bottom = cb_mem_alloc(CB_MEM_STACKS, "cb.fnstack", fs->size * sizeof(fn_node *));
   fs->top = fs->bottom;
   *fs->top = NULL;
}

static void ensure_fn_stack(fn_stack *fs)
{
   Int used = fs->top - fs->bottom;
   if (used + 2 < fs->size) return;
   fs->bottom = cb_mem_realloc(CB_MEM_STACKS, "cb.fnstack", fs->bottom,
                               fs->size * sizeof(fn_node *),
                               2 * fs->size * sizeof(fn_node *));
   fs->size *= 2;
   fs->top = fs->bottom + used;
}

/* Enter function fn (NULL: a signal handler's separator). The context
 * being left is saved in the call stack slot that the next push fills. */
void cb_push_cxt(fn_node *fn)
{
   call_entry *e;
   UInt size, depth;

   cb_ensure_call_stack(cb_calls->sp + 1);
   e = &cb_calls->entry[cb_calls->sp];
   e->cxt = cb_cur.cxt;
   e->fn_sp = cb_fns->top - cb_fns->bottom;

   /* Direct recursion keeps the context (its level is counted apart). */
   if (fn && *cb_fns->top == fn) return;

   ensure_fn_stack(cb_fns);
   *++cb_fns->top = fn;
   if (!fn) { cb_cur.cxt = NULL; return; }

   /* the context: fn and up to separate_callers callers, not crossing a
    * signal separator */
   size = 1;
   depth = cb_fns->top - cb_fns->bottom;
   while (size <= (UInt)fn->separate_callers && size < depth
          && cb_fns->top[-(Int)size] != NULL)
      size++;
   cb_cur.cxt = cb_get_cxt(cb_fns->top, size);
}

/* The recursion depth of function number n in the current thread: how
 * many of its activations are on the call stack (for separating
 * recursion levels); the counter itself, to be changed by the caller. */
UInt *cb_fn_depth(UInt n)
{
   thread_info *t = cb_cur.thread;
   if (n >= t->fn_active_size) {
      UInt old = t->fn_active_size, sz = old ? old : 1024;
      while (sz <= n) sz *= 2;
      t->fn_active = cb_mem_realloc(CB_MEM_STACKS, "cb.fnactive", t->fn_active,
                                    old * sizeof(UInt), sz * sizeof(UInt));
      VG_(memset)(t->fn_active + old, 0, (sz - old) * sizeof(UInt));
      t->fn_active_size = sz;
   }
   return &t->fn_active[n];
}

/* Collection of the running execution state on or off. A call is counted
 * when its costs are collected: a call made while collection is off
 * counts when collection turns on inside it (the reference counts it when
 * made and writes the count with the next costs of its call site). */
void cb_set_collect(Bool on)
{
   Int i;
   if (on && !cb_cur.collect)
      for (i = cb_cur.es->call_stack_bottom; i < cb_calls->sp; i++) {
         call_entry *e = &cb_calls->entry[i];
         if (e->jcc && !e->counted) {
            e->jcc->call_counter++;
            e->counted = True;
         }
      }
   cb_cur.collect = on;
}

/* First entry into fn (no other activation on this thread's stack). */
static void function_entered(fn_node *fn)
{
   if (fn->dump_before) {
      HChar trigger[VG_(strlen)(fn->name) + 20];
      VG_(sprintf)(trigger, "--dump-before=%s", fn->name);
      cb_dump_profile(trigger, True);
   } else if (fn->zero_before) {
      cb_zero_all_cost(True);
   }
   if (fn->toggle_collect) cb_set_collect(!cb_cur.collect);
   if (fn->sharing_cut) cb_fs_fn_entered(fn);     /* --sharing: barriers */
}

/* Last exit from fn. */
static void function_left(fn_node *fn)
{
   if (fn->dump_after) {
      HChar trigger[VG_(strlen)(fn->name) + 20];
      VG_(sprintf)(trigger, "--dump-after=%s", fn->name);
      cb_dump_profile(trigger, True);
   }
   if (fn->toggle_collect) cb_set_collect(!cb_cur.collect);
   if (fn->sharing_cut) cb_fs_fn_left(fn);
}

/* Depth bookkeeping: with --skip-direct-rec, a function calling itself
 * does not deepen its recursion level. */
static Bool counts_as_level(const JCC *jcc, const fn_node *to_fn)
{
   return !cb_clo.skip_direct_rec || jcc->from->cxt->fn[0] != to_fn;
}

/* A --separate-par context's first entry and last exit are its
 * function's (--toggle-collect, --dump-before ... act on the function,
 * whatever its argument values): the function's depth counts the frames
 * of all its contexts, while each context's own depth makes its
 * recursion levels. step: +1 entering, -1 leaving. */
static UInt *base_depth(const JCC *jcc, const fn_node *to_fn, Int step)
{
   UInt *depth = cb_fn_depth(to_fn->base->number);
   if (!cb_clo.skip_direct_rec || jcc->from->cxt->fn[0]->base != to_fn->base)
      *depth += step;
   return depth;
}

static Addr return_address(const BBCC *from, UInt jmp)
{
   const BB *bb = from->bb;
   const instr_info *ii;
   if (bb->jmp[jmp].kind != jk_Call) return 0;
   ii = &bb->instr[bb->jmp[jmp].instr];
   return bb->addr + ii->offset + ii->size;
}

/* Push a frame for a call from (from, exit jmp) to `to`. A faked call
 * (a return found no frame) is entered by the code already running, so
 * in the back-dating tree the current root takes its arc. */
static void push_frame(BBCC *from, UInt jmp, BBCC *to, Addr sp, Bool skip, Bool faked)
{
   call_entry *e;
   JCC *jcc = NULL;
   fn_node *to_fn = to->cxt->fn[0], *entered = NULL;

   cb_ensure_call_stack(cb_calls->sp + 1);
   e = &cb_calls->entry[cb_calls->sp];
   e->bd_pushed = False;

   if (!skip) {
      UInt *depth;
      if (!e->enter_cost) e->enter_cost = cb_new_cost(CB_MEM_STACKS);
      cb_copy_cost(e->enter_cost, cb_cur.cost);
      jcc = cb_get_jcc(from, jmp, to);
      depth = cb_fn_depth(to_fn->number);
      if (counts_as_level(jcc, to_fn)) (*depth)++;
      if (*depth > 1) cb_stat.rec_call_counter++;
      if (cb_cur.collect) jcc->call_counter++;
      e->counted = cb_cur.collect;
      cb_stat.call_counter++;
      if (UNLIKELY(cb_clo.paths)) cb_paths_call(e, jcc, faked);
      if (faked) cb_bd_adopt_root(jcc); else cb_bd_call(jcc);
      e->bd_pushed = True;
      if (UNLIKELY(to_fn->base != to_fn)) depth = base_depth(jcc, to_fn, +1);
      if (*depth == 1) entered = to_fn->base;
   }

   /* a skipped function's costs stay its caller's path's */
   if (skip && UNLIKELY(cb_clo.paths)) e->path_node = cb_cur.es->path_cur;
   e->jcc = jcc;
   e->sp = sp;
   e->entry_sp = 0;          /* calltrack.c sets it where it knows it */
   e->ret_addr = return_address(from, jmp);
   e->nonskipped = cb_cur.nonskipped;
   cb_calls->sp++;
   cb_calls->entry[cb_calls->sp].cxt = NULL;

   if (cb_clo.objects) cb_obj_frame_pushed(e, jcc, to_fn, skip);

   if (!skip) {
      cb_cur.nonskipped = NULL;
   } else if (!cb_cur.nonskipped) {
      /* entering skipped code: its costs go to the calling cost centre */
      cb_cur.nonskipped = from;
      if (!from->skipped) from->skipped = cb_new_cost(CB_MEM_COSTS);
   }
   /* once the frame is complete: a dump or zero here sees it running */
   if (entered) function_entered(entered);
}

void cb_push_call_stack(BBCC *from, UInt jmp, BBCC *to, Addr sp, Bool skip)
{
   push_frame(from, jmp, to, sp, skip, False);
}

void cb_push_faked_call(BBCC *from, BBCC *to)
{
   push_frame(from, 0, to, (Addr)-1, False, True);
}

/* Pop the top frame, adding its inclusive cost to its arc. */
void cb_pop_call_stack(void)
{
   call_entry *e;
   JCC *jcc;
   fn_node *left = NULL;

   /* leaving the bottom frame of a signal handler (longjmp out of it)
    * ends the handler first */
   if (cb_cur.sig > 0) cb_run_post_signal_on_call_stack_bottom();

   e = &cb_calls->entry[cb_calls->sp - 1];
   jcc = e->jcc;
   cb_cur.nonskipped = e->nonskipped;

   if (UNLIKELY(cb_clo.paths)) cb_paths_return(e);
   if (e->bd_pushed) {
      cb_bd_return(1);
      e->bd_pushed = False;
   }
   if (jcc) {
      fn_node *to_fn = jcc->to->cxt->fn[0];
      UInt *depth = cb_fn_depth(to_fn->number);
      if (counts_as_level(jcc, to_fn)) (*depth)--;
      if (cb_add_diff_cost(jcc->cost, e->enter_cost, cb_cur.cost))
         jcc->from->ret_counter++;
      cb_stat.ret_counter++;
      cb_cur.cxt = e->cxt;
      cb_fns->top = cb_fns->bottom + e->fn_sp;
      if (UNLIKELY(to_fn->base != to_fn)) depth = base_depth(jcc, to_fn, -1);
      if (*depth == 0) left = to_fn->base;
   }
   if (cb_clo.objects) cb_obj_frame_popping(e);
   e->cxt = NULL;
   cb_calls->sp--;
   /* after the frame is gone: a dump there must not count it again */
   if (left) function_left(left);
}

/* Pop every frame whose stack pointer lies below sp (longjmp, exceptions),
 * and at least minpops frames whose stack pointer equals it. */
Int cb_unwind_call_stack(Addr sp, Int minpops)
{
   Int count = 0;
   while (cb_calls->sp > 0) {
      call_entry *top = &cb_calls->entry[cb_calls->sp - 1];
      if (top->sp < sp || (top->sp == sp && minpops > 0)) {
         minpops--;
         count++;
         cb_pop_call_stack();
         continue;
      }
      break;
   }
   return count;
}

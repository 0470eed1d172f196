/* callgrind-bd: argument-controlled contexts, --separate-par (thesis
 * section 3.6).
 *
 * --separate-par=<function>:<n>[:<b1>,<b2>,...] makes the value of the
 * n-th integer argument at the function's first instruction part of its
 * name: fib2(4,3) runs as the function "fib2:p1=4:p2=3". Such a context is
 * an ordinary function of the profile (fn.c, cb_fn_variant): cost
 * centres, call arcs, recursion levels, --separate-callers, back-dating
 * nodes and --objects chains all key on it, so they split by the value
 * without knowing why.
 *
 * The rules:
 *   - the value is the whole 64-bit register (rdi, rsi, rdx, rcx, r8,
 *     r9 for n = 1..6: the System V amd64 convention) read as a signed
 *     integer, at the block that starts at the function's first
 *     instruction; entered anywhere else (no symbol for its start, a
 *     return into it with an empty call stack) the function keeps its
 *     plain name;
 *   - with borders b1 < b2 < ... < bk the value only selects a bucket:
 *     "p<n><=b1", "p<n>=lo..hi" (b(i-1) < v <= b(i); "p<n>=v" when the
 *     bucket holds one value), "p<n>>bk";
 *   - the parts are written in the order of n, whatever the order of the
 *     options; for one n of one function the last matching option wins,
 *     as for the other per-function options.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "libvex_guest_amd64.h"

#define SP_MAX_PARAMS 6

typedef cb_sep_par_option sp_option;

/* What one function separates by: its parameters, in increasing n. */
typedef struct sep_par {
   UInt n;
   const sp_option *param[SP_MAX_PARAMS];
} sep_par;

/* Put o into sp's parameter list, kept sorted by n; an option for an n
 * already there replaces it (the later option wins). */
static void add_param(sep_par *sp, const sp_option *o)
{
   UInt i, j;
   for (i = 0; i < sp->n && sp->param[i]->param < o->param; i++) ;
   if (i < sp->n && sp->param[i]->param == o->param) { sp->param[i] = o; return; }
   for (j = sp->n; j > i; j--) sp->param[j] = sp->param[j - 1];
   sp->param[i] = o;
   sp->n++;
}

/* On the function's first sight (fn.c): which options name it. */
void cb_sp_config_apply(fn_node *fn)
{
   sp_option *o;
   sep_par *sp = NULL;
   for (o = cb_sep_par_options; o; o = o->next) {
      if (!VG_(string_match)(o->pattern, fn->name)) continue;
      o->matched = True;
      if (!sp) {
         sp = CB_MALLOC("cb.sp.fn", sizeof *sp);
         sp->n = 0;
      }
      add_param(sp, o);
   }
   fn->separate_par = sp;
}

/* -v: options whose pattern never matched a function that ran. */
void cb_sp_report_unmatched(void)
{
   sp_option *o;
   for (o = cb_sep_par_options; o; o = o->next)
      if (!o->matched)
         VG_(fmsg)("callgrind-bd: warning: %s: pattern '%s' matched no function\n",
                   o->text, o->pattern);
}

/*------------------------------------------------------------*/
/*--- Argument values                                      ---*/
/*------------------------------------------------------------*/

/* The n-th (0-based) integer argument register of the running thread,
 * as the System V amd64 convention passes it; meaningful at a function's
 * first instruction, where no code has changed it yet. */
UWord cb_guest_int_arg(UInt n)
{
   static const PtrdiffT reg[SP_MAX_PARAMS] = {
      offsetof(VexGuestAMD64State, guest_RDI),
      offsetof(VexGuestAMD64State, guest_RSI),
      offsetof(VexGuestAMD64State, guest_RDX),
      offsetof(VexGuestAMD64State, guest_RCX),
      offsetof(VexGuestAMD64State, guest_R8),
      offsetof(VexGuestAMD64State, guest_R9),
   };
   UWord v = 0;
   CB_ASSERT(n < SP_MAX_PARAMS);
   VG_(get_shadow_regs_area)(cb_cur.tid, (UChar *)&v, 0, reg[n], sizeof v);
   return v;
}

/* The key of value v: the value itself, or its bucket's index. */
static Long key_of(const sp_option *o, Long v)
{
   UInt i;
   if (o->n_borders == 0) return v;
   for (i = 0; i < o->n_borders && v > o->borders[i]; i++) ;
   return i;
}

/* ":p<n>..." for one parameter's key. */
static Int name_part(HChar *buf, const sp_option *o, Long key)
{
   UInt n = o->param, k = o->n_borders;
   Long lo, hi;
   if (k == 0) return VG_(sprintf)(buf, ":p%u=%lld", n, key);
   if (key == 0) return VG_(sprintf)(buf, ":p%u<=%lld", n, o->borders[0]);
   if (key == (Long)k) return VG_(sprintf)(buf, ":p%u>%lld", n, o->borders[k - 1]);
   lo = o->borders[key - 1] + 1;
   hi = o->borders[key];
   if (lo == hi) return VG_(sprintf)(buf, ":p%u=%lld", n, lo);
   return VG_(sprintf)(buf, ":p%u=%lld..%lld", n, lo, hi);
}

/*------------------------------------------------------------*/
/*--- Contexts, interned by (function, keys)               ---*/
/*------------------------------------------------------------*/

typedef struct sp_context {
   fn_node *base;
   Long     key[SP_MAX_PARAMS];
   fn_node *fn;
   struct sp_context *next;
} sp_context;

static sp_context **cxt_table;
static UInt cxt_table_size, cxt_entries;

static UWord keys_hash(const fn_node *base, const Long *key, UInt n)
{
   UWord h = base->number;
   UInt i;
   for (i = 0; i < n; i++) h = h * 1000003 + (UWord)key[i];
   return h;
}

static void resize_table(void)
{
   UInt new_size = cxt_table_size ? 2 * cxt_table_size + 1 : 251, i;
   sp_context **t = CB_MALLOC("cb.sp.table", new_size * sizeof *t);
   VG_(memset)(t, 0, new_size * sizeof *t);
   for (i = 0; i < cxt_table_size; i++) {
      sp_context *c = cxt_table[i];
      while (c) {
         sp_context *next = c->next;
         UWord k = keys_hash(c->base, c->key, c->base->separate_par->n) % new_size;
         c->next = t[k];
         t[k] = c;
         c = next;
      }
   }
   if (cxt_table) CB_FREE(cxt_table);
   cxt_table = t;
   cxt_table_size = new_size;
}

static fn_node *new_context(fn_node *base, const Long *key, UWord h)
{
   const sep_par *sp = base->separate_par;
   HChar name[VG_(strlen)(base->name) + SP_MAX_PARAMS * 48 + 1];
   Int used = VG_(sprintf)(name, "%s", base->name);
   sp_context *c = CB_MALLOC("cb.sp.cxt", sizeof *c);
   UInt i;

   for (i = 0; i < sp->n; i++) used += name_part(name + used, sp->param[i], key[i]);
   c->base = base;
   VG_(memcpy)(c->key, key, sp->n * sizeof(Long));
   c->fn = cb_fn_variant(base, name);
   c->next = cxt_table[h % cxt_table_size];
   cxt_table[h % cxt_table_size] = c;
   if (++cxt_entries > 2 * cxt_table_size) resize_table();
   return c->fn;
}

/* The context a separated function is entered in, from the argument
 * registers (called by the call tracker at the function's first
 * instruction). */
fn_node *cb_sp_context_fn(fn_node *base)
{
   const sep_par *sp = base->separate_par;
   Long key[SP_MAX_PARAMS];
   sp_context *c;
   UWord h;
   UInt i;

   for (i = 0; i < sp->n; i++)
      key[i] = key_of(sp->param[i], (Long)cb_guest_int_arg(sp->param[i]->param - 1));
   h = keys_hash(base, key, sp->n);
   if (!cxt_table) resize_table();
   for (c = cxt_table[h % cxt_table_size]; c; c = c->next)
      if (c->base == base && VG_(memcmp)(c->key, key, sp->n * sizeof(Long)) == 0)
         return c->fn;
   return new_context(base, key, h);
}

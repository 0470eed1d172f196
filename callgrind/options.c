/* callgrind-bd: command-line options, named and defaulted as the
 * reference Callgrind's, plus --backdate and --backdate-check.
 *
 * Per-function options (--fn-skip, --toggle-collect, --dump-before, ...)
 * take patterns with '*' and '?'; they are applied to each function the
 * first time it is seen.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"

CbOptions cb_clo = {
   .out_format = NULL,
   .dump_instr = False, .dump_line = True,
   .compress_strings = True, .compress_pos = True, .combine_dumps = False,
   .separate_threads = False, .skip_plt = True, .skip_direct_rec = False,
   .pop_on_jump = False,
   .separate_callers = 0, .separate_recs = 2,
   .collect_atstart = True, .instr_atstart = True,
   .collect_jumps = False, .collect_systime = False,
   .dump_every_bb = 0,
   .simulate_cache = False, .cacheuse = False, .simulate_wb = False,
   .simulate_hwpref = False, .branch_sim = False,
   .backdate = True, .backdate_check = False,
   .objects = False, .object_callers = 1, .object_granularity = 0,
};

static Bool collect_atstart_given;
static Bool backdate_given;

/*------------------------------------------------------------*/
/*--- Per-function configuration                           ---*/
/*------------------------------------------------------------*/

typedef enum {
   FC_SKIP, FC_TOGGLE, FC_DUMP_BEFORE, FC_DUMP_AFTER, FC_ZERO_BEFORE,
   FC_SEP_CALLERS, FC_SEP_RECS, FC_POP_ON_JUMP
} FnConfigKind;

typedef struct fn_config {
   FnConfigKind kind;
   const HChar *pattern;
   Int value;
   struct fn_config *next;
} fn_config;

static fn_config *fn_configs, **fn_configs_tail = &fn_configs;

static void add_fn_config(FnConfigKind kind, const HChar *pattern, Int value)
{
   fn_config *c = CB_MALLOC("cb.clo.fnc", sizeof *c);
   c->kind = kind;
   c->pattern = VG_(strdup)("cb.clo.fnc", pattern);
   c->value = value;
   c->next = NULL;
   *fn_configs_tail = c;
   fn_configs_tail = &c->next;
}

void cb_fn_config_apply(fn_node *fn)
{
   fn_config *c;
   for (c = fn_configs; c; c = c->next) {
      if (!VG_(string_match)(c->pattern, fn->name)) continue;
      switch (c->kind) {
      case FC_SKIP:         fn->skip = True; break;
      case FC_TOGGLE:       fn->toggle_collect = True; break;
      case FC_DUMP_BEFORE:  fn->dump_before = True; break;
      case FC_DUMP_AFTER:   fn->dump_after = True; break;
      case FC_ZERO_BEFORE:  fn->zero_before = True; break;
      case FC_SEP_CALLERS:  fn->separate_callers = c->value; break;
      case FC_SEP_RECS:     fn->separate_recs = c->value; break;
      case FC_POP_ON_JUMP:  fn->pop_on_jump = True; break;
      }
   }
}

/*------------------------------------------------------------*/
/*--- Parsing                                              ---*/
/*------------------------------------------------------------*/

/* "--separate-callers3=fn" style: a number glued to the option name. */
static Bool numbered_fn_option(const HChar *arg, const HChar *prefix,
                               FnConfigKind kind)
{
   SizeT pl = VG_(strlen)(prefix);
   const HChar *p;
   HChar *end;
   Long n;
   if (VG_(strncmp)(arg, prefix, pl) != 0) return False;
   p = arg + pl;
   if (*p < '0' || *p > '9') return False;
   n = VG_(strtoll10)(p, &end);
   if (*end != '=' || end[1] == '\0' || n < 0 || n > 1000)
      VG_(fmsg_bad_option)(arg, "expected %s<number>=<function pattern>\n", prefix);
   add_fn_config(kind, end + 1, (Int)n);
   return True;
}

/* --I1=size,assoc,line */
static Bool cache_option(const HChar *arg, const HChar *name, Int *geom, Bool *set)
{
   SizeT nl = VG_(strlen)(name);
   const HChar *p;
   HChar *end;
   Int i;
   if (VG_(strncmp)(arg, name, nl) != 0 || arg[nl] != '=') return False;
   p = arg + nl + 1;
   for (i = 0; i < 3; i++) {
      Long v = VG_(strtoll10)(p, &end);
      if (end == p || v <= 0 || v > (1LL << 40)
          || (i < 2 && *end != ',') || (i == 2 && *end != '\0'))
         VG_(fmsg_bad_option)(arg, "expected %s=<size>,<associativity>,<line size> (positive numbers)\n", name);
      geom[i] = (Int)v;
      p = end + 1;
   }
   *set = True;
   cb_clo.simulate_cache = True;
   return True;
}

static Bool systime_option(const HChar *arg)
{
   const HChar *v;
   if (!VG_STR_CLO(arg, "--collect-systime", v)) return False;
   if (VG_(strcmp)(v, "no") == 0) cb_clo.collect_systime = False;
   else if (VG_(strcmp)(v, "yes") == 0 || VG_(strcmp)(v, "msec") == 0
            || VG_(strcmp)(v, "usec") == 0 || VG_(strcmp)(v, "nsec") == 0)
      VG_(fmsg_bad_option)(arg, "system call time collection is not supported yet\n");
   else
      VG_(fmsg_bad_option)(arg, "expected no|yes|msec|usec|nsec\n");
   return True;
}

Bool cb_process_cmd_line_option(const HChar *arg)
{
   const HChar *pat;
   Bool b;

   if      VG_STR_CLO(arg, "--callgrind-out-file", cb_clo.out_format) {}
   else if VG_BOOL_CLO(arg, "--dump-instr", cb_clo.dump_instr) {}
   else if VG_BOOL_CLO(arg, "--dump-line", cb_clo.dump_line) {}
   else if VG_BOOL_CLO(arg, "--compress-strings", cb_clo.compress_strings) {}
   else if VG_BOOL_CLO(arg, "--compress-pos", cb_clo.compress_pos) {}
   else if VG_BOOL_CLO(arg, "--combine-dumps", cb_clo.combine_dumps) {}
   else if VG_BOOL_CLO(arg, "--separate-threads", cb_clo.separate_threads) {}
   else if VG_BOOL_CLO(arg, "--skip-plt", cb_clo.skip_plt) {}
   else if VG_BOOL_CLO(arg, "--skip-direct-rec", cb_clo.skip_direct_rec) {}
   else if VG_BOOL_CLO(arg, "--pop-on-jump", cb_clo.pop_on_jump) {}
   else if VG_BINT_CLO(arg, "--separate-callers", cb_clo.separate_callers, 0, 1000) {}
   else if VG_BINT_CLO(arg, "--separate-recs", cb_clo.separate_recs, 1, 1000) {}
   else if (numbered_fn_option(arg, "--separate-callers", FC_SEP_CALLERS)) {}
   else if (numbered_fn_option(arg, "--separate-recs", FC_SEP_RECS)) {}
   else if VG_BOOL_CLO(arg, "--collect-atstart", cb_clo.collect_atstart) { collect_atstart_given = True; }
   else if VG_BOOL_CLO(arg, "--instr-atstart", cb_clo.instr_atstart) {}
   else if VG_BOOL_CLO(arg, "--collect-jumps", cb_clo.collect_jumps) {}
   else if (systime_option(arg)) {}
   else if VG_BOOL_CLO(arg, "--collect-bus", b) {
      if (b) VG_(fmsg_bad_option)(arg, "bus event collection is not supported yet\n");
   }
   else if VG_BINT_CLO(arg, "--dump-every-bb", cb_clo.dump_every_bb, 0, (1ULL << 62)) {}
   else if VG_STR_CLO(arg, "--dump-before", pat) { add_fn_config(FC_DUMP_BEFORE, pat, 0); }
   else if VG_STR_CLO(arg, "--dump-after", pat)  { add_fn_config(FC_DUMP_AFTER, pat, 0); }
   else if VG_STR_CLO(arg, "--zero-before", pat) { add_fn_config(FC_ZERO_BEFORE, pat, 0); }
   else if VG_STR_CLO(arg, "--toggle-collect", pat) {
      add_fn_config(FC_TOGGLE, pat, 0);
      if (!collect_atstart_given) cb_clo.collect_atstart = False;
   }
   else if VG_STR_CLO(arg, "--fn-skip", pat) { add_fn_config(FC_SKIP, pat, 0); }
   else if VG_STR_CLO(arg, "--pop-on-jump-fn", pat) { add_fn_config(FC_POP_ON_JUMP, pat, 0); }
   else if VG_BOOL_CLO(arg, "--cache-sim", cb_clo.simulate_cache) {}
   else if VG_BOOL_CLO(arg, "--simulate-cache", cb_clo.simulate_cache) {}
   else if VG_BOOL_CLO(arg, "--cacheuse", cb_clo.cacheuse) {
      if (cb_clo.cacheuse) cb_clo.dump_instr = True;
   }
   else if VG_BOOL_CLO(arg, "--simulate-wb", cb_clo.simulate_wb) {}
   else if VG_BOOL_CLO(arg, "--simulate-hwpref", cb_clo.simulate_hwpref) {}
   else if VG_BOOL_CLO(arg, "--branch-sim", cb_clo.branch_sim) {}
   else if VG_BOOL_CLO(arg, "--backdate", cb_clo.backdate) { backdate_given = True; }
   else if VG_BOOL_CLO(arg, "--backdate-check", cb_clo.backdate_check) {}
   else if (cache_option(arg, "--I1", cb_clo.i1, &cb_clo.i1_set)) {}
   else if (cache_option(arg, "--D1", cb_clo.d1, &cb_clo.d1_set)) {}
   else if (cache_option(arg, "--LL", cb_clo.ll, &cb_clo.ll_set)) {}
   else if (cache_option(arg, "--L2", cb_clo.ll, &cb_clo.ll_set)) {}
   else if VG_BINT_CLO(arg, "--ct-verbose", cb_clo.verbose, 0, 10) {}
   else if VG_BOOL_CLO(arg, "--objects", cb_clo.objects) {}
   else if VG_BINT_CLO(arg, "--object-callers", cb_clo.object_callers, 0, 16) {}
   else if VG_BINT_CLO(arg, "--object-granularity", cb_clo.object_granularity, 1, (1 << 30)) {}
   else return False;
   return True;
}

void cb_print_usage(void)
{
   VG_(printf)(
"\n   dump creation options:\n"
"    --callgrind-out-file=<f>  Output file name [callgrind.out.%%p]\n"
"    --dump-line=no|yes        Dump source lines of costs? [yes]\n"
"    --dump-instr=no|yes       Dump instruction address of costs? [no]\n"
"    --compress-strings=no|yes Compress strings in profile dump? [yes]\n"
"    --compress-pos=no|yes     Compress positions in profile dump? [yes]\n"
"    --combine-dumps=no|yes    Concat all dumps into same file [no]\n"
"\n   activity options (for interactivity use callgrind_control):\n"
"    --dump-every-bb=<count>   Dump every <count> basic blocks [0=never]\n"
"    --dump-before=<func>      Dump when entering function\n"
"    --zero-before=<func>      Zero all costs when entering function\n"
"    --dump-after=<func>       Dump when leaving function\n"
"\n   data collection options:\n"
"    --instr-atstart=no|yes    Do instrumentation at callgrind start [yes]\n"
"    --collect-atstart=no|yes  Collect at process/thread start [yes]\n"
"    --toggle-collect=<func>   Toggle collection on enter/leave function\n"
"    --collect-jumps=no|yes    Collect jumps? [no]\n"
"\n   cost entity separation options:\n"
"    --separate-threads=no|yes Separate data per thread [no]\n"
"    --separate-callers=<n>    Separate functions by call chain length [0]\n"
"    --separate-callers<n>=<f> Separate <n> callers for function <f>\n"
"    --separate-recs=<n>       Separate function recursions up to level [2]\n"
"    --separate-recs<n>=<f>    Separate <n> recursions for function <f>\n"
"    --skip-plt=no|yes         Ignore calls to/from PLT sections? [yes]\n"
"    --skip-direct-rec=no|yes  Ignore direct recursions? [no]\n"
"    --fn-skip=<function>      Ignore calls to/from function?\n"
"    --pop-on-jump=no|yes      Treat jumps out of functions as returns [no]\n"
"\n   simulation options:\n"
"    --branch-sim=no|yes       Do branch prediction simulation [no]\n"
"    --cache-sim=no|yes        Do cache simulation [no]\n"
"    --simulate-cache=no|yes   Alias of --cache-sim\n"
"    --I1=<size>,<assoc>,<line_size>  set I1 cache manually\n"
"    --D1=<size>,<assoc>,<line_size>  set D1 cache manually\n"
"    --LL=<size>,<assoc>,<line_size>  set LL cache manually (--L2 is an alias)\n"
"    --cacheuse=no|yes         Collect cache line use (AcCost, SpLoss) [no]\n"
"    --simulate-wb=no|yes      Count LL misses evicting dirty lines [no]\n"
"    --simulate-hwpref=no|yes  Simulate a stream prefetcher into LL [no]\n"
"\n   back-dating options (callgrind-bd):\n"
"    --backdate=no|yes         Exact inclusive costs of cache-use metrics\n"
"                              through the back-dating tree [yes]\n"
"    --backdate-check=no|yes   Add oracle events L1ld/LLld (lines loaded,\n"
"                              immediate) and L1ldB/LLldB (back-dated) [no]\n"
"\n   data object options (callgrind-bd):\n"
"    --objects=no|yes          Costs per data object (heap allocation site,\n"
"                              static variable, stack, ...) in a second\n"
"                              profile <callgrind-out-file>.objects [no]\n"
"    --object-callers=<n>      Caller frames naming an allocation site [1]\n"
"    --object-granularity=<b>  Costs per <b>-byte offset granule of each\n"
"                              object (at least the largest line size) [off]\n"
   );
}

void cb_print_debug_usage(void)
{
   VG_(printf)("    --ct-verbose=<level>      Verbosity of callgrind-bd's own statistics [0]\n");
}

/* Checks that need all options. */
void cb_options_post(void)
{
   if (!cb_clo.dump_line && !cb_clo.dump_instr) {
      VG_(fmsg)("callgrind-bd: --dump-line=no needs --dump-instr=yes (no position left to write)\n");
      VG_(exit)(1);
   }
   if ((cb_clo.cacheuse || cb_clo.simulate_wb || cb_clo.simulate_hwpref)
       && !cb_clo.simulate_cache)
      cb_clo.simulate_cache = True;
   if (!cb_clo.cacheuse) {
      if (backdate_given && cb_clo.backdate)
         VG_(fmsg)("callgrind-bd: warning: --backdate=yes has no effect without --cacheuse=yes\n");
      cb_clo.backdate = False;
   }
   if (cb_clo.objects && !cb_clo.simulate_cache)
      cb_clo.simulate_cache = True;       /* objects are about data accesses */
   if (cb_clo.backdate_check && !cb_clo.cacheuse) {
      VG_(fmsg)("callgrind-bd: --backdate-check=yes needs --cacheuse=yes\n");
      VG_(exit)(1);
   }
}

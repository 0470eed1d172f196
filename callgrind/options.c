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
#include "cachesim.h"

cb_options cb_clo = {
   .out_format = NULL,
   .dump_instr = False, .dump_line = True,
   .compress_strings = True, .compress_pos = True, .combine_dumps = False,
   .separate_threads = False, .skip_plt = True, .skip_direct_rec = False,
   .pop_on_jump = False,
   .separate_callers = 0, .separate_recs = 2,
   .collect_atstart = True, .instr_atstart = True,
   .collect_jumps = False, .collect_bus = False,
   .collect_systime = SYSTIME_NO,
   .dump_every_bb = 0,
   .simulate_cache = False, .cacheuse = False, .simulate_wb = False,
   .simulate_hwpref = False, .branch_sim = False,
   .backdate = True, .backdate_check = False, .defer_sim = True,
   .objects = False, .object_callers = 1, .object_granularity = 0,
   .sharing = False, .sharing_penalty = FS_DEFAULT_PENALTY,
   .latency = False, .latency_window = 256,
   .bandwidth = False, .bandwidth_unit = BW_UNIT_INSTR, .bandwidth_window = 200,
   .bandwidth_limits = NULL,
   .interleave = CB_DEFAULT_INTERLEAVE,
   .pin_threads = True,
};

cb_sep_par_option *cb_sep_par_options;
static cb_sep_par_option **sep_par_tail = &cb_sep_par_options;

static Bool collect_atstart_given;
static Bool backdate_given;
/* options that mean something only with --objects=yes (--sharing=yes),
 * as given */
static const HChar *object_callers_arg, *object_granularity_arg;
static const HChar *sharing_penalty_arg;
static const HChar *latency_window_arg;
/* options that mean something only with --bandwidth=yes, as given */
static const HChar *bandwidth_unit_arg, *bandwidth_window_arg, *bandwidth_limits_arg;
/* explicitly given (--bandwidth=yes turns them on, refuses "no") */
static const HChar *simulate_wb_no_arg;
static Bool private_caches_given;
static const HChar *interleave_arg;   /* means something with --private-caches or --sharing */
static const HChar *pin_threads_arg;  /* and this with the turns only */

/*------------------------------------------------------------*/
/*--- Per-function configuration                           ---*/
/*------------------------------------------------------------*/

typedef enum {
   FC_SKIP, FC_TOGGLE, FC_DUMP_BEFORE, FC_DUMP_AFTER, FC_ZERO_BEFORE,
   FC_SEP_CALLERS, FC_SEP_RECS, FC_POP_ON_JUMP
} fn_config_kind;

typedef struct fn_config {
   fn_config_kind kind;
   const HChar *pattern;
   const HChar *option;      /* as given, for the warning at exit */
   Int value;
   Bool matched;             /* some function the program ran matched */
   struct fn_config *next;
} fn_config;

static fn_config *fn_configs, **fn_configs_tail = &fn_configs;

static void add_fn_config(fn_config_kind kind, const HChar *option,
                          const HChar *pattern, Int value)
{
   fn_config *c = CB_MALLOC("cb.clo.fnc", sizeof *c);
   c->kind = kind;
   c->pattern = VG_(strdup)("cb.clo.fnc", pattern);
   c->option = VG_(strdup)("cb.clo.fnc", option);
   c->value = value;
   c->matched = False;
   c->next = NULL;
   *fn_configs_tail = c;
   fn_configs_tail = &c->next;
}

void cb_fn_config_apply(fn_node *fn)
{
   fn_config *c;
   for (c = fn_configs; c; c = c->next) {
      if (!VG_(string_match)(c->pattern, fn->name)) continue;
      c->matched = True;
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

/* At exit: a pattern that matched no function the program ran is most
 * likely a typo; say so, once per option as given. */
void cb_fn_config_warn_unmatched(void)
{
   fn_config *c, *d;
   for (c = fn_configs; c; c = c->next) {
      if (c->matched) continue;
      for (d = fn_configs; d != c; d = d->next)
         if (!d->matched && VG_(strcmp)(d->option, c->option) == 0) break;
      if (d != c) continue;               /* the same option given twice */
      VG_(fmsg)("callgrind-bd: warning: %s: pattern '%s' matched no function\n",
                c->option, c->pattern);
   }
}

/*------------------------------------------------------------*/
/*--- Parsing                                              ---*/
/*------------------------------------------------------------*/

/* Every malformed value stops Valgrind before the client runs with ONE
 * line naming the option and what was expected (Valgrind's own helper
 * spreads that over two lines), then the usual hint, as the core does
 * for unknown options. */
static void bad_option(const HChar *arg, const HChar *fmt, ...) PRINTF_CHECK(2, 3);
static void bad_option(const HChar *arg, const HChar *fmt, ...)
{
   HChar why[256];
   va_list vargs;
   va_start(vargs, fmt);
   VG_(vsnprintf)(why, sizeof why, fmt, vargs);
   va_end(vargs);
   VG_(fmsg)("Bad option: %s: %s\n", arg, why);
   VG_(fmsg)("Use --help for more information or consult the user manual.\n");
   VG_(exit)(1);
}

/* arg is "<name>=<value>": the value, else NULL. */
static const HChar *value_of(const HChar *arg, const HChar *name)
{
   SizeT n = VG_(strlen)(name);
   if (VG_(strncmp)(arg, name, n) != 0 || arg[n] != '=') return NULL;
   return arg + n + 1;
}

static Bool bool_opt(const HChar *arg, const HChar *name, Bool *var)
{
   const HChar *v = value_of(arg, name);
   if (!v) return False;
   if (VG_(strcmp)(v, "yes") == 0) *var = True;
   else if (VG_(strcmp)(v, "no") == 0) *var = False;
   else bad_option(arg, "expected yes or no, not '%s'", v);
   return True;
}

/* A plain decimal number (no sign, no suffix) in [lo, hi]. */
static ULong number_in(const HChar *arg, const HChar *v, ULong lo, ULong hi)
{
   ULong n = 0;
   const HChar *p;
   if (*v == '\0') bad_option(arg, "expected a number");
   for (p = v; *p; p++) {
      if (*p < '0' || *p > '9')
         bad_option(arg, "expected a number, not '%s'", v);
      if (n > (hi - (ULong)(*p - '0')) / 10)
         bad_option(arg, "value out of range %llu..%llu", lo, hi);
      n = n * 10 + (ULong)(*p - '0');
   }
   if (n < lo) bad_option(arg, "value out of range %llu..%llu", lo, hi);
   return n;
}

static Bool int_opt(const HChar *arg, const HChar *name, Int *var, Int lo, Int hi)
{
   const HChar *v = value_of(arg, name);
   if (!v) return False;
   *var = (Int)number_in(arg, v, (ULong)lo, (ULong)hi);
   return True;
}

static Bool ulong_opt(const HChar *arg, const HChar *name, ULong *var, ULong lo, ULong hi)
{
   const HChar *v = value_of(arg, name);
   if (!v) return False;
   *var = number_in(arg, v, lo, hi);
   return True;
}

/* A function pattern ('*', '?'), or a file name: never empty. */
static Bool string_opt(const HChar *arg, const HChar *name, const HChar **var)
{
   const HChar *v = value_of(arg, name);
   if (!v) return False;
   if (*v == '\0') bad_option(arg, "empty value");
   *var = v;
   return True;
}

/* --callgrind-out-file: %p, %% and %q{VAR} (VAR set) only; checked here
 * so that expanding the name later cannot fail with a message of its own. */
static Bool out_file_option(const HChar *arg)
{
   const HChar *v, *p;
   if (!string_opt(arg, "--callgrind-out-file", &v)) return False;
   for (p = v; *p; p++) {
      if (*p != '%') continue;
      p++;
      if (*p == 'p' || *p == '%') continue;
      if (*p != 'q' || p[1] != '{')
         bad_option(arg, "expected %%p, %%q{VAR} or %%%% after '%%'");
      {
         const HChar *name = p + 2, *end = name;
         while (*end && *end != '}') end++;
         if (*end != '}' || end == name)
            bad_option(arg, "expected %%q{VAR} with a variable name");
         {
            HChar var[end - name + 1];
            VG_(memcpy)(var, name, end - name);
            var[end - name] = '\0';
            if (!VG_(getenv)(var))
               bad_option(arg, "environment variable '%s' is not set", var);
         }
         p = end;
      }
   }
   cb_clo.out_format = v;
   return True;
}

static Bool fn_opt(const HChar *arg, const HChar *name, fn_config_kind kind)
{
   const HChar *pat;
   if (!string_opt(arg, name, &pat)) return False;
   add_fn_config(kind, arg, pat, 0);
   return True;
}

/* "--separate-callers3=fn" style: a number glued to the option name.
 * The limits are those of the global option. */
static Bool numbered_fn_option(const HChar *arg, const HChar *prefix,
                               fn_config_kind kind, Int lo, Int hi)
{
   SizeT pl = VG_(strlen)(prefix);
   const HChar *p;
   HChar num[24];
   SizeT n = 0;
   if (VG_(strncmp)(arg, prefix, pl) != 0) return False;
   p = arg + pl;
   if (*p < '0' || *p > '9') return False;
   while (*p >= '0' && *p <= '9') {
      if (n + 1 < sizeof num) num[n++] = *p;
      else bad_option(arg, "level out of range %d..%d", lo, hi);
      p++;
   }
   num[n] = '\0';
   if (*p != '=')
      bad_option(arg, "expected %s<number>=<function pattern>", prefix);
   if (p[1] == '\0') bad_option(arg, "empty function pattern");
   add_fn_config(kind, arg, p + 1, (Int)number_in(arg, num, (ULong)lo, (ULong)hi));
   return True;
}

/* A signed decimal number filling [s, end), into *out; False if it is
 * none or overflows 64 bits. */
static Bool parse_long(const HChar *s, const HChar *end, Long *out)
{
   Bool neg = (s < end && *s == '-');
   ULong n = 0, limit = neg ? (1ULL << 63) : (1ULL << 63) - 1;
   if (neg) s++;
   if (s == end) return False;
   for (; s < end; s++) {
      if (*s < '0' || *s > '9') return False;
      if (n > (limit - (ULong)(*s - '0')) / 10) return False;
      n = n * 10 + (ULong)(*s - '0');
   }
   *out = neg ? (Long)(0 - n) : (Long)n;
   return True;
}

/* The end of a --separate-par pattern: its first ':' that is not part of
 * a C++ "::". */
static const HChar *pattern_end(const HChar *v)
{
   const HChar *p;
   for (p = v; *p; p++) {
      if (*p != ':') continue;
      if (p[1] == ':') { p++; continue; }
      return p;
   }
   return NULL;
}

static void add_sep_par(const HChar *arg, const HChar *pattern, UInt param,
                        const Long *borders, UInt n_borders)
{
   cb_sep_par_option *o = CB_MALLOC("cb.clo.sp", sizeof *o);
   o->text = VG_(strdup)("cb.clo.sp", arg);
   o->pattern = VG_(strdup)("cb.clo.sp", pattern);
   o->param = param;
   o->n_borders = n_borders;
   o->borders = NULL;
   if (n_borders > 0) {
      o->borders = CB_MALLOC("cb.clo.sp", n_borders * sizeof(Long));
      VG_(memcpy)(o->borders, borders, n_borders * sizeof(Long));
   }
   o->matched = False;
   o->next = NULL;
   *sep_par_tail = o;
   sep_par_tail = &o->next;
}

/* --separate-par=<function>:<n>[:<b1>,<b2>,...]: n counts the integer
 * arguments passed in registers (1..6); borders strictly increasing. */
#define SP_MAX_BORDERS 64
static Bool separate_par_option(const HChar *arg)
{
   const HChar *v = value_of(arg, "--separate-par"), *colon, *p, *end;
   Long borders[SP_MAX_BORDERS], n;
   UInt n_borders = 0;

   if (!v) return False;
   colon = pattern_end(v);
   if (!colon || colon == v)
      bad_option(arg, "expected --separate-par=<function>:<n>[:<b1>,<b2>,...]");
   HChar pattern[colon - v + 1];
   VG_(memcpy)(pattern, v, colon - v);
   pattern[colon - v] = '\0';

   p = colon + 1;
   for (end = p; *end && *end != ':'; end++) ;
   if (end == p) bad_option(arg, "missing argument number <n> after '%s:'", pattern);
   if (!parse_long(p, end, &n) || *p == '-')
      bad_option(arg, "argument number <n> must be a number 1..6, not '%.*s'",
                 (Int)(end - p), p);
   if (n < 1 || n > 6)
      bad_option(arg, "argument number %lld out of range 1..6 (the integer arguments "
                 "passed in registers)", n);

   if (*end == ':') {
      p = end + 1;
      for (;;) {
         for (end = p; *end && *end != ','; end++) ;
         if (n_borders == SP_MAX_BORDERS)
            bad_option(arg, "more than %d borders", SP_MAX_BORDERS);
         if (!parse_long(p, end, &borders[n_borders]))
            bad_option(arg, "border '%.*s' is not a 64-bit signed integer",
                       (Int)(end - p), p);
         if (n_borders > 0 && borders[n_borders] <= borders[n_borders - 1])
            bad_option(arg, "borders must be strictly increasing (%lld after %lld)",
                       borders[n_borders], borders[n_borders - 1]);
         n_borders++;
         if (*end == '\0') break;
         p = end + 1;
      }
   }
   add_sep_par(arg, pattern, (UInt)n, borders, n_borders);
   return True;
}

/* --I1=size,assoc,line: three positive numbers forming a usable cache. */
static Bool cache_option(const HChar *arg, const HChar *name, Int *geom, Bool *set)
{
   const HChar *p = value_of(arg, name);
   Int i;
   if (!p) return False;
   for (i = 0; i < 3; i++) {
      HChar num[24];
      SizeT n = 0;
      while (*p >= '0' && *p <= '9' && n + 1 < sizeof num) num[n++] = *p++;
      num[n] = '\0';
      if (n == 0 || (i < 2 && *p != ',') || (i == 2 && *p != '\0'))
         bad_option(arg, "expected %s=<size>,<associativity>,<line size>", name);
      geom[i] = (Int)number_in(arg, num, 1, 1U << 30);
      p++;
   }
   {
      cs_geometry g = { geom[0], geom[1], geom[2] };
      const char *err = cs_geometry_check(&g);
      if (err) {
         HChar why[128];
         SizeT len;
         VG_(snprintf)(why, sizeof why, "%s", err);
         len = VG_(strlen)(why);
         if (len > 0 && why[len - 1] == '\n') why[len - 1] = '\0';
         bad_option(arg, "%s", why);
      }
   }
   *set = True;
   cb_clo.simulate_cache = True;
   return True;
}

/* --L2=<size>,<assoc>,<line> (checked as --D1) or --L2=host (read at
 * start, geometry.c). The reference takes --L2 as an old name of --LL;
 * ours is the third level (docs/differences.md). */
static Bool l2_option(const HChar *arg)
{
   const HChar *v = value_of(arg, "--L2");
   if (!v) return False;
   if (VG_(strcmp)(v, "host") == 0) {
      cb_clo.l2_set = cb_clo.l2_host = True;
      cb_clo.simulate_cache = True;
      return True;
   }
   cb_clo.l2_host = False;
   return cache_option(arg, "--L2", cb_clo.l2, &cb_clo.l2_set);
}

/* --prefetch=no|stream[:<distance>] (the distance in lines, 1..64) */
static Bool prefetch_option(const HChar *arg)
{
   const HChar *v = value_of(arg, "--prefetch");
   if (!v) return False;
   if (VG_(strcmp)(v, "no") == 0) { cb_clo.prefetch_distance = 0; return True; }
   if (VG_(strncmp)(v, "stream", 6) != 0 || (v[6] != '\0' && v[6] != ':'))
      bad_option(arg, "expected no, stream or stream:<distance>");
   if (v[6] == '\0') cb_clo.prefetch_distance = 5;
   else cb_clo.prefetch_distance = (Int)number_in(arg, v + 7, 1, 64);
   cb_clo.simulate_cache = True;
   return True;
}

static Bool systime_option(const HChar *arg)
{
   const HChar *v = value_of(arg, "--collect-systime");
   if (!v) return False;
   if (VG_(strcmp)(v, "no") == 0) cb_clo.collect_systime = SYSTIME_NO;
   else if (VG_(strcmp)(v, "yes") == 0 || VG_(strcmp)(v, "msec") == 0)
      cb_clo.collect_systime = SYSTIME_MSEC;
   else if (VG_(strcmp)(v, "usec") == 0) cb_clo.collect_systime = SYSTIME_USEC;
   else if (VG_(strcmp)(v, "nsec") == 0) cb_clo.collect_systime = SYSTIME_NSEC;
   else bad_option(arg, "expected no, yes, msec, usec or nsec, not '%s'", v);
   return True;
}

/* --bandwidth-unit=instr|flop */
static Bool bandwidth_unit_option(const HChar *arg)
{
   const HChar *v = value_of(arg, "--bandwidth-unit");
   if (!v) return False;
   if (VG_(strcmp)(v, "instr") == 0) cb_clo.bandwidth_unit = BW_UNIT_INSTR;
   else if (VG_(strcmp)(v, "flop") == 0) cb_clo.bandwidth_unit = BW_UNIT_FLOP;
   else bad_option(arg, "expected instr or flop, not '%s'", v);
   bandwidth_unit_arg = arg;
   return True;
}

/* The reference's --pop-on-jump is a bare switch, and --pop-on-jump=<f>
 * names functions. "=yes"/"=no" (an earlier form of ours) stay switches. */
static Bool pop_on_jump_option(const HChar *arg)
{
   const HChar *v;
   if (VG_(strcmp)(arg, "--pop-on-jump") == 0) { cb_clo.pop_on_jump = True; return True; }
   v = value_of(arg, "--pop-on-jump");
   if (!v) return fn_opt(arg, "--pop-on-jump-fn", FC_POP_ON_JUMP);
   if (VG_(strcmp)(v, "yes") == 0) cb_clo.pop_on_jump = True;
   else if (VG_(strcmp)(v, "no") == 0) cb_clo.pop_on_jump = False;
   else return fn_opt(arg, "--pop-on-jump", FC_POP_ON_JUMP);
   return True;
}

/* --max-memory=<size> (memory.c parses and keeps it) */
static Bool max_memory_opt(const HChar *arg)
{
   const HChar *v = value_of(arg, "--max-memory"), *why;
   if (!v) return False;
   if (!cb_mem_parse_limit(v, &why)) bad_option(arg, "%s", why);
   return True;
}

Bool cb_process_cmd_line_option(const HChar *arg)
{
   Bool b;

   if      (out_file_option(arg)) {}
   else if (bool_opt(arg, "--dump-instr", &cb_clo.dump_instr)) {}
   else if (bool_opt(arg, "--dump-line", &cb_clo.dump_line)) {}
   else if (bool_opt(arg, "--compress-strings", &cb_clo.compress_strings)) {}
   else if (bool_opt(arg, "--compress-pos", &cb_clo.compress_pos)) {}
   else if (bool_opt(arg, "--combine-dumps", &cb_clo.combine_dumps)) {}
   else if (bool_opt(arg, "--separate-threads", &cb_clo.separate_threads)) {}
   else if (bool_opt(arg, "--skip-plt", &cb_clo.skip_plt)) {}
   else if (bool_opt(arg, "--skip-direct-rec", &cb_clo.skip_direct_rec)) {}
   else if (pop_on_jump_option(arg)) {}
   else if (int_opt(arg, "--separate-callers", &cb_clo.separate_callers, 0, 1000)) {}
   else if (int_opt(arg, "--separate-recs", &cb_clo.separate_recs, 1, 1000)) {}
   else if (numbered_fn_option(arg, "--separate-callers", FC_SEP_CALLERS, 0, 1000)) {}
   else if (numbered_fn_option(arg, "--separate-recs", FC_SEP_RECS, 1, 1000)) {}
   else if (bool_opt(arg, "--collect-atstart", &cb_clo.collect_atstart)) { collect_atstart_given = True; }
   else if (bool_opt(arg, "--instr-atstart", &cb_clo.instr_atstart)) {}
   else if (bool_opt(arg, "--collect-jumps", &cb_clo.collect_jumps)) {}
   else if (bool_opt(arg, "--trace-jump", &cb_clo.collect_jumps)) {}   /* the reference's old name */
   else if (systime_option(arg)) {}
   else if (bool_opt(arg, "--collect-bus", &cb_clo.collect_bus)) {}
   else if (ulong_opt(arg, "--dump-every-bb", &cb_clo.dump_every_bb, 0, 1ULL << 62)) {}
   else if (fn_opt(arg, "--dump-before", FC_DUMP_BEFORE)) {}
   else if (fn_opt(arg, "--dump-after", FC_DUMP_AFTER)) {}
   else if (fn_opt(arg, "--zero-before", FC_ZERO_BEFORE)) {}
   else if (fn_opt(arg, "--toggle-collect", FC_TOGGLE)) {
      if (!collect_atstart_given) cb_clo.collect_atstart = False;
   }
   else if (fn_opt(arg, "--fn-skip", FC_SKIP)) {}
   else if (separate_par_option(arg)) {}
   else if (bool_opt(arg, "--cache-sim", &cb_clo.simulate_cache)) {}
   else if (bool_opt(arg, "--simulate-cache", &cb_clo.simulate_cache)) {}
   else if (bool_opt(arg, "--cacheuse", &b)) {
      cb_clo.cacheuse = b;
      if (b) cb_clo.dump_instr = True;
   }
   else if (bool_opt(arg, "--simulate-wb", &cb_clo.simulate_wb)) {
      simulate_wb_no_arg = cb_clo.simulate_wb ? NULL : arg;
   }
   else if (bool_opt(arg, "--simulate-hwpref", &cb_clo.simulate_hwpref)) {}
   else if (bool_opt(arg, "--branch-sim", &cb_clo.branch_sim)) {}
   else if (bool_opt(arg, "--backdate", &cb_clo.backdate)) { backdate_given = True; }
   else if (bool_opt(arg, "--backdate-check", &cb_clo.backdate_check)) {}
   else if (bool_opt(arg, "--paths", &cb_clo.paths)) {}
   else if (bool_opt(arg, "--defer-sim", &cb_clo.defer_sim)) {}
   else if (bool_opt(arg, "--miss-class", &cb_clo.miss_class)) {}
   else if (bool_opt(arg, "--private-caches", &cb_clo.private_caches)) {
      private_caches_given = True;
   }
   else if (int_opt(arg, "--interleave", &cb_clo.interleave, 0, CB_MAX_INTERLEAVE)) {
      interleave_arg = arg;
   }
   else if (bool_opt(arg, "--pin-threads", &cb_clo.pin_threads)) {
      pin_threads_arg = arg;
   }
   else if (bool_opt(arg, "--reuse-dist", &cb_clo.reuse_dist)) {}
   else if (bool_opt(arg, "--latency", &cb_clo.latency)) {}
   else if (int_opt(arg, "--latency-window", &cb_clo.latency_window, 1, 1 << 30)) {
      latency_window_arg = arg;
   }
   else if (cache_option(arg, "--I1", cb_clo.i1, &cb_clo.i1_set)) {}
   else if (cache_option(arg, "--D1", cb_clo.d1, &cb_clo.d1_set)) {}
   else if (cache_option(arg, "--LL", cb_clo.ll, &cb_clo.ll_set)) {}
   else if (l2_option(arg)) {}
   else if (prefetch_option(arg)) {}
   else if (int_opt(arg, "--ct-verbose", &cb_clo.verbose, 0, 10)) {}
   else if (bool_opt(arg, "--objects", &cb_clo.objects)) {}
   else if (int_opt(arg, "--object-callers", &cb_clo.object_callers, 0, 16)) {
      object_callers_arg = arg;
   }
   else if (int_opt(arg, "--object-granularity", &cb_clo.object_granularity, 1, 1 << 30)) {
      object_granularity_arg = arg;
   }
   else if (bool_opt(arg, "--sharing", &cb_clo.sharing)) {}
   else if (int_opt(arg, "--sharing-penalty", &cb_clo.sharing_penalty, 1, 1000000)) {
      sharing_penalty_arg = arg;
   }
   else if (bool_opt(arg, "--bandwidth", &cb_clo.bandwidth)) {}
   else if (bandwidth_unit_option(arg)) {}
   else if (int_opt(arg, "--bandwidth-window", &cb_clo.bandwidth_window, 1, 65536)) {
      bandwidth_window_arg = arg;
   }
   else if (string_opt(arg, "--bandwidth-limits", &cb_clo.bandwidth_limits)) {
      bandwidth_limits_arg = arg;
   }
   else if (max_memory_opt(arg)) {}
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
"\n   activity options (for interactivity use callgrind-bd_control):\n"
"    --dump-every-bb=<count>   Dump every <count> basic blocks [0=never]\n"
"    --dump-before=<func>      Dump when entering function\n"
"    --zero-before=<func>      Zero all costs when entering function\n"
"    --dump-after=<func>       Dump when leaving function\n"
"\n   data collection options:\n"
"    --instr-atstart=no|yes    Do instrumentation at callgrind start [yes]\n"
"    --collect-atstart=no|yes  Collect at process/thread start [yes]\n"
"    --toggle-collect=<func>   Toggle collection on enter/leave function\n"
"    --collect-jumps=no|yes    Collect jumps? [no]\n"
"    --collect-bus=no|yes      Collect global bus events? [no]\n"
"    --collect-systime=no|yes|msec|usec|nsec  Collect system call time info? [no]\n"
"        no         Do not collect system call time info.\n"
"        msec|yes   Collect syscount, syscall elapsed time (milli-seconds).\n"
"        usec       Collect syscount, syscall elapsed time (micro-seconds).\n"
"        nsec       Collect syscount, syscall elapsed and syscall cpu time (nano-seconds).\n"
"\n   cost entity separation options:\n"
"    --separate-threads=no|yes Separate data per thread [no]\n"
"    --separate-callers=<n>    Separate functions by call chain length [0]\n"
"    --separate-callers<n>=<f> Separate <n> callers for function <f>\n"
"    --separate-recs=<n>       Separate function recursions up to level [2]\n"
"    --separate-recs<n>=<f>    Separate <n> recursions for function <f>\n"
"    --skip-plt=no|yes         Ignore calls to/from PLT sections? [yes]\n"
"    --skip-direct-rec=no|yes  Ignore direct recursions? [no]\n"
"    --fn-skip=<function>      Ignore calls to/from function?\n"
"    --pop-on-jump             A jump out of a function into another one is\n"
"                              a return plus a call [off]\n"
"    --pop-on-jump=<f>         The same, only for jumps out of function <f>\n"
"    --separate-par=<f>:<n>[:<b1>,<b2>,...]  Separate function <f> by the\n"
"                              value of its <n>-th integer argument (1..6),\n"
"                              or by its bucket among borders <b1> < <b2> ...\n"
"\n   simulation options:\n"
"    --branch-sim=no|yes       Do branch prediction simulation [no]\n"
"    --cache-sim=no|yes        Do cache simulation [no]\n"
"    --simulate-cache=no|yes   Alias of --cache-sim\n"
"    --I1=<size>,<assoc>,<line_size>  set I1 cache manually\n"
"    --D1=<size>,<assoc>,<line_size>  set D1 cache manually\n"
"    --LL=<size>,<assoc>,<line_size>  set LL cache manually\n"
"    --L2=<size>,<assoc>,<line_size>|host  add a private unified L2 between\n"
"                              I1/D1 and LL (host: the host's L2); events\n"
"                              I2mr D2mr D2mw [none]\n"
"    --prefetch=no|stream[:<d>]  Stream prefetcher into D1 (and below), d\n"
"                              lines ahead [no; d: 5]; event Pfi (with\n"
"                              --cacheuse=yes also Pfu, Pfx: used, unused)\n"
"    --cacheuse=no|yes         Collect cache line use (AcCost, SpLoss) [no]\n"
"    --simulate-wb=no|yes      Count LL misses evicting dirty lines [no]\n"
"    --simulate-hwpref=no|yes  Simulate a stream prefetcher into LL [no]\n"
"\n   back-dating options (callgrind-bd):\n"
"    --backdate=no|yes         Exact inclusive costs of cache-use metrics\n"
"                              through the back-dating tree [yes]\n"
"    --backdate-check=no|yes   Add oracle events L1ld/LLld (lines loaded,\n"
"                              immediate) and L1ldB/LLldB (back-dated) [no]\n"
"\n   call path options (callgrind-bd):\n"
"    --paths=no|yes            Every event per full call path, root first, in\n"
"                              <callgrind-out-file>.paths beside each profile\n"
"                              file (flame graphs: callgrind-bd_paths; with\n"
"                              --objects=yes the data object as the last\n"
"                              frame of the back-dated events) [no]\n"
"\n   miss analysis options (callgrind-bd):\n"
"    --miss-class=no|yes       Classify I1/D1/LL misses as compulsory,\n"
"                              capacity, conflict (I1Co ... LLCf) [no]\n"
"    --reuse-dist=no|yes       LRU reuse distance of data accesses in\n"
"                              power-of-two buckets of lines (Rd0 ... RdCold) [no]\n"
"    --latency=no|yes          Count read misses whose address depends on an\n"
"                              earlier read miss (D1dep, DLdep); longest\n"
"                              chains per function in desc: lines [no]\n"
"    --latency-window=<n>      A miss delays the misses it feeds within <n>\n"
"                              guest instructions (the reorder window) [256]\n"
"\n   multi-core options (callgrind-bd):\n"
"    --private-caches=no|yes   Every thread a core with private I1/D1 over\n"
"                              the shared LL, kept coherent (MSI): events\n"
"                              D1Ts, D1Fs (true/false sharing misses), Inv [no]\n"
"    --interleave=<blocks>     With private caches or --sharing, threads take\n"
"                              turns every <blocks> blocks (turns on\n"
"                              --fair-sched=yes);\n"
"                              0: Valgrind's own slices of 100000 [500]\n"
"    --pin-threads=yes|no      With the turns, the threads on one host CPU\n"
"                              (the client still sees its own affinity) [yes]\n"
"\n   bandwidth options (callgrind-bd):\n"
"    --bandwidth=no|yes        Bytes per time unit on every data path of the\n"
"                              multi-core model, smoothed over a window, in\n"
"                              <callgrind-out-file>.bandwidth; event Flop;\n"
"                              turns on --cache-sim, --simulate-wb and\n"
"                              --private-caches [no]\n"
"    --bandwidth-unit=instr|flop  Time unit: a guest instruction or a\n"
"                              floating-point operation [instr]\n"
"    --bandwidth-window=<W>    Window of the smoothing, in time units [200]\n"
"    --bandwidth-limits=<file> Machine file (bandwidth per path, peak rate):\n"
"                              dominance per time unit, events Bw* [none]\n"
"\n   data object options (callgrind-bd):\n"
"    --objects=no|yes          Costs per data object (heap allocation site,\n"
"                              static variable, stack, ...) in a second\n"
"                              profile <callgrind-out-file>.objects [no]\n"
"    --object-callers=<n>      Caller frames naming an allocation site [1]\n"
"    --object-granularity=<b>  Costs per <b>-byte offset granule of each\n"
"                              object (at least the largest line size) [off]\n"
"\n   false sharing options (callgrind-bd):\n"
"    --sharing=no|yes          Estimate false sharing between threads per\n"
"                              cache line and parallel segment, written to\n"
"                              <callgrind-out-file>.sharing(.txt) [no]; with\n"
"                              --read-var-info=yes its byte ranges name members\n"
"    --sharing-penalty=<n>     Cycles per false sharing event, for the time\n"
"                              estimate (perf/sharing-penalty.c) [10]\n"
"\n   memory (callgrind-bd):\n"
"    --max-memory=<size>       Limit on the memory of the tool's tables (512M,\n"
"                              4G); when reached, write the profile so far,\n"
"                              marked incomplete, and stop [half the RAM]\n"
"\n   Events of callgrind-bd (with --cacheuse=yes), per cache line leaving\n"
"   the cache, charged to the code and every call that loaded it:\n"
"    SpLoss1/SpLoss2  spatial loss: bytes of an L1/LL line never used\n"
"    AcCost1/AcCost2  access cost: 1000 / accesses the line got (1000: used once)\n"
"   See callgrind-bd(1); callgrind-bd_control(1) controls a running program.\n"
"   Bug reports on callgrind-bd go to its authors (the callgrind-bd issue\n"
"   tracker), not to Valgrind's address below.\n"
   );
}

void cb_print_debug_usage(void)
{
   VG_(printf)("    --ct-verbose=<level>      Verbosity of callgrind-bd's own statistics [0]\n");
   VG_(printf)("    --defer-sim=yes|no        simulate a block's accesses at its end, not in place [yes]\n");
}

/* An option given without the one that gives it a meaning: refused, in
 * one line, before the client runs (nothing is ignored silently). */
static void needs_option(const HChar *given, const HChar *needed)
{
   VG_(fmsg)("callgrind-bd: %s needs %s\n", given, needed);
   VG_(exit)(1);
}

/* --bandwidth=yes observes the paths of the multi-core model: the cache
 * simulation, write-back (dirty LL evictions are the LL->mem path) and,
 * unless --private-caches=no was given, one core per thread (the L1<-L1
 * path). Write-back explicitly off is refused: that path would be lost. */
static void bandwidth_implies(void)
{
   if (simulate_wb_no_arg) {
      VG_(fmsg)("callgrind-bd: --bandwidth=yes needs --simulate-wb=yes (the LL->mem path), "
                "not %s\n", simulate_wb_no_arg);
      VG_(exit)(1);
   }
   cb_clo.simulate_cache = True;
   cb_clo.simulate_wb = True;
   if (!private_caches_given) cb_clo.private_caches = True;
}

/* Two options whose combination is not modelled: refused in one line. */
static void refuse(const HChar *a, const HChar *b)
{
   VG_(fmsg)("callgrind-bd: %s cannot be combined with %s\n", a, b);
   VG_(exit)(1);
}

/* What --L2 and --prefetch do not cover yet (docs/differences.md). */
static void l2_prefetch_refusals(void)
{
   /* the bandwidth model's paths know two levels and demand loads only */
   if (cb_clo.bandwidth && cb_clo.prefetch_distance > 0)
      refuse("--prefetch=stream", "--bandwidth=yes");
   if (cb_clo.bandwidth && (cb_clo.l2_set || cb_clo.l2_host))
      refuse("--L2", "--bandwidth=yes");
   if (cb_clo.prefetch_distance > 0) {
      if (cb_clo.simulate_hwpref) refuse("--prefetch=stream", "--simulate-hwpref=yes");
      if (cb_clo.objects) refuse("--prefetch=stream", "--objects=yes");
      if (cb_clo.miss_class) refuse("--prefetch=stream", "--miss-class=yes");
      if (cb_clo.private_caches) refuse("--prefetch=stream", "--private-caches=yes");
   }
}

/* Checks that need all options. */
void cb_options_post(void)
{
   if (!cb_clo.dump_line && !cb_clo.dump_instr) {
      /* as the reference: some position must be written */
      VG_(umsg)("Using source line as position.\n");
      cb_clo.dump_line = True;
   }
   if (cb_clo.bandwidth) bandwidth_implies();
   if ((cb_clo.cacheuse || cb_clo.simulate_wb || cb_clo.simulate_hwpref
        || cb_clo.miss_class || cb_clo.reuse_dist || cb_clo.private_caches || cb_clo.latency)
       && !cb_clo.simulate_cache)
      cb_clo.simulate_cache = True;
   if (!cb_clo.cacheuse) {
      if (backdate_given)
         VG_(fmsg)("callgrind-bd: warning: --backdate=%s has no effect without --cacheuse=yes\n",
                   cb_clo.backdate ? "yes" : "no");
      cb_clo.backdate = False;
   }
   if ((cb_clo.objects || cb_clo.sharing) && !cb_clo.simulate_cache)
      cb_clo.simulate_cache = True;       /* both are about data accesses */
   if (cb_clo.backdate_check && !cb_clo.cacheuse)
      needs_option("--backdate-check=yes", "--cacheuse=yes");
   /* the back-dated events reach a path through the trees */
   if (cb_clo.paths && cb_clo.cacheuse && !cb_clo.backdate)
      refuse("--paths=yes", "--backdate=no");
   l2_prefetch_refusals();
   if (!cb_clo.objects) {
      if (object_callers_arg) needs_option(object_callers_arg, "--objects=yes");
      if (object_granularity_arg) needs_option(object_granularity_arg, "--objects=yes");
   }
   if (!cb_clo.private_caches && !cb_clo.sharing && interleave_arg)
      needs_option(interleave_arg, "--private-caches=yes or --sharing=yes");
   if (pin_threads_arg && !cb_il_active())
      needs_option(pin_threads_arg, "the turns (--private-caches=yes or --sharing=yes, "
                   "--interleave above 0)");
   if (!cb_clo.latency && latency_window_arg)
      needs_option(latency_window_arg, "--latency=yes");
   if (!cb_clo.sharing && sharing_penalty_arg)
      needs_option(sharing_penalty_arg, "--sharing=yes");
   if (!cb_clo.bandwidth) {
      if (bandwidth_unit_arg) needs_option(bandwidth_unit_arg, "--bandwidth=yes");
      if (bandwidth_window_arg) needs_option(bandwidth_window_arg, "--bandwidth=yes");
      if (bandwidth_limits_arg) needs_option(bandwidth_limits_arg, "--bandwidth=yes");
   }
}

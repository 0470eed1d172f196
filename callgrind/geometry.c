/* callgrind-bd: the simulated caches' geometry.
 *
 * Owns the sizes of I1, D1, LL and (--L2) L2: the host's caches as Valgrind detected
 * them (the highest unified level as LL, as the reference does), replaced
 * by --I1/--D1/--LL, checked (a bad geometry stops the run before the
 * client with one line naming the cache), and described in the profile's
 * desc: lines. The cache model (cachesim/) gets them from here.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"
#include "cachesim.h"

cb_cache_geometry cb_geom = { .min_line_size = 64, .i1_line_bits = 6 };

/* The host's level-2 unified (or data) cache as Valgrind detected it
 * (cpuid: leaf 4 on Intel, 0x80000005/6 on AMD; the source of the LL's
 * default too). False if it has none. */
static Bool detect_host_l2(cs_geometry *l2)
{
   VexArchInfo vai;
   const VexCacheInfo *ci;
   UInt i;
   VG_(machine_get_VexArchInfo)(NULL, &vai);
   ci = &vai.hwcache_info;
   for (i = 0; i < ci->num_caches; i++) {
      const VexCache *c = &ci->caches[i];
      if (c->level == 2 && (c->kind == UNIFIED_CACHE || c->kind == DATA_CACHE)) {
         *l2 = (cs_geometry){ (int)c->sizeB, (int)c->assoc, (int)c->line_sizeB };
         return True;
      }
   }
   return False;
}

/* --L2=host: the host's L2, its set count made a power of two as the
 * LL's (with the same two warnings); no L2 found stops the run. */
static void host_l2(cs_geometry *l2)
{
   cs_geometry before;
   int changed = 0;
   if (!detect_host_l2(l2)) {
      VG_(fmsg)("callgrind-bd: --L2=host: no level-2 cache found on this host; "
                "give --L2=<size>,<assoc>,<line>\n");
      VG_(exit)(1);
   }
   before = *l2;
   cs_geometry_fixup_host(l2, &changed);
   if (changed) {
      VG_(dmsg)("warning: host L2 cache: line_size %d  assoc %d  total_size %'d\n",
                before.line_size, before.assoc, before.size);
      VG_(dmsg)("warning: simulated L2 cache: line_size %d  assoc %d  total_size %'d\n",
                l2->line_size, l2->assoc, l2->size);
   }
}

/* Host caches as Valgrind detected them. */
static void detect_host_caches(cs_geometry *i1, cs_geometry *d1, cs_geometry *ll)
{
   VexArchInfo vai;
   const VexCacheInfo *ci;
   UInt i, ll_level = 0;

   cs_geometry_defaults(i1, d1, ll);
   VG_(machine_get_VexArchInfo)(NULL, &vai);
   ci = &vai.hwcache_info;
   for (i = 0; i < ci->num_caches; i++) {
      const VexCache *c = &ci->caches[i];
      cs_geometry g = { (int)c->sizeB, (int)c->assoc, (int)c->line_sizeB };
      if (c->level == 1 && c->kind == INSN_CACHE) *i1 = g;
      else if (c->level == 1 && c->kind == DATA_CACHE) *d1 = g;
      else if (c->kind == UNIFIED_CACHE && c->level >= ll_level) { *ll = g; ll_level = c->level; }
   }
   /* as the reference, say so only when a cache is simulated */
   if (ll_level > 2 && cb_clo.simulate_cache)
      VG_(dmsg)("warning: L%u cache found, using its data for the LL simulation.\n", ll_level);
   if (ll_level > 0) {
      cs_geometry before = *ll;
      int changed = 0;
      cs_geometry_fixup_host(ll, &changed);
      if (changed && cb_clo.simulate_cache) {
         VG_(dmsg)("warning: specified LL cache: line_size %d  assoc %d  total_size %'d\n",
                   before.line_size, before.assoc, before.size);
         VG_(dmsg)("warning: simulated LL cache: line_size %d  assoc %d  total_size %'d\n",
                   ll->line_size, ll->assoc, ll->size);
      }
   }
}

static void check_geometry(const HChar *name, const cs_geometry *g)
{
   const char *err = cs_geometry_check(g);
   if (err) {
      VG_(fmsg)("callgrind-bd: invalid %s cache %d,%d,%d: %s", name,
                g->size, g->assoc, g->line_size, err);
      VG_(exit)(1);
   }
}

static Int min_int(Int a, Int b) { return a < b ? a : b; }

void cb_geometry_setup(void)
{
   cb_cache_geometry *g = &cb_geom;
   detect_host_caches(&g->i1, &g->d1, &g->ll);
   if (cb_clo.i1_set) g->i1 = (cs_geometry){ cb_clo.i1[0], cb_clo.i1[1], cb_clo.i1[2] };
   if (cb_clo.d1_set) g->d1 = (cs_geometry){ cb_clo.d1[0], cb_clo.d1[1], cb_clo.d1[2] };
   if (cb_clo.ll_set) g->ll = (cs_geometry){ cb_clo.ll[0], cb_clo.ll[1], cb_clo.ll[2] };
   check_geometry("I1", &g->i1);
   check_geometry("D1", &g->d1);
   check_geometry("LL", &g->ll);
   g->has_l2 = cb_clo.l2_set;
   if (cb_clo.l2_host) host_l2(&g->l2);
   else if (cb_clo.l2_set) g->l2 = (cs_geometry){ cb_clo.l2[0], cb_clo.l2[1], cb_clo.l2[2] };
   if (g->has_l2) check_geometry("L2", &g->l2);
   for (g->i1_line_bits = 0; (1 << g->i1_line_bits) < g->i1.line_size; g->i1_line_bits++) ;
   g->min_line_size = min_int(g->i1.line_size, min_int(g->d1.line_size, g->ll.line_size));
   if (g->has_l2) g->min_line_size = min_int(g->min_line_size, g->l2.line_size);
   if (VG_(clo_verbosity) > 1 || cb_clo.verbose > 0) {
      char b[3][96];
      cs_geometry_desc(&g->i1, b[0], sizeof b[0]);
      cs_geometry_desc(&g->d1, b[1], sizeof b[1]);
      cs_geometry_desc(&g->ll, b[2], sizeof b[2]);
      VG_(dmsg)("I1 cache: %s\nD1 cache: %s\nLL cache: %s\n", b[0], b[1], b[2]);
      if (g->has_l2) {
         cs_geometry_desc(&g->l2, b[0], sizeof b[0]);
         VG_(dmsg)("L2 cache: %s\n", b[0]);
      }
   }
}

/* The largest simulated line size (data objects check their granule). */
Int cb_geometry_max_line_size(void)
{
   const cb_cache_geometry *g = &cb_geom;
   Int m = g->d1.line_size > g->ll.line_size ? g->d1.line_size : g->ll.line_size;
   if (g->has_l2 && g->l2.line_size > m) m = g->l2.line_size;
   return g->i1.line_size > m ? g->i1.line_size : m;
}

/* Without cache simulation the values are empty, as the reference
 * writes them (no cache was simulated, whatever the host has). */
static void write_cache_desc(cb_outfile *f, const HChar *name, const cs_geometry *g)
{
   char b[96] = "";
   if (cb_clo.simulate_cache) cs_geometry_desc(g, b, sizeof b);
   cb_out_printf(f, "desc: %s cache: %s\n", name, b);
}

void cb_geometry_write_desc(cb_outfile *f)
{
   write_cache_desc(f, "I1", &cb_geom.i1);
   write_cache_desc(f, "D1", &cb_geom.d1);
   if (cb_geom.has_l2) write_cache_desc(f, "L2", &cb_geom.l2);
   write_cache_desc(f, "LL", &cb_geom.ll);
}

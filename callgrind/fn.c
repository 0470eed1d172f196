/* callgrind-bd: objects, files and functions from Valgrind's debug info.
 *
 * Names are interned once: an object by its file name, a file by its full
 * path inside its object, a function by its name inside its file, so that
 * pointer equality is name equality everywhere else.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"

#define N_OBJ_HASH  503
#define N_FILE_HASH 2039
#define N_FN_HASH   8191

static obj_node  *obj_table[N_OBJ_HASH];
static file_node *file_table[N_FILE_HASH];
static fn_node   *fn_table[N_FN_HASH];
UInt cb_distinct_fns;
static UInt distinct_objs, distinct_files;

/* The dynamic linker's lazy-binding resolver ends with a jump into the
 * resolved function. Treating that jump as a call would put the resolver
 * into every call chain, so its frame is popped first (pop-on-jump). */
static const HChar RESOLVER_PREFIX[] = "_dl_runtime_resolve";

static UInt str_hash(const HChar *s, UInt size)
{
   UInt h = 0;
   for (; *s; s++) h = h * 31 + (UChar)*s;
   return h % size;
}

void cb_init_fn_tables(void)
{
   VG_(memset)(obj_table, 0, sizeof obj_table);
   VG_(memset)(file_table, 0, sizeof file_table);
   VG_(memset)(fn_table, 0, sizeof fn_table);
}

obj_node *cb_get_obj_node(DebugInfo *di)
{
   const HChar *name = di ? VG_(DebugInfo_get_filename)(di) : "???";
   UInt h = str_hash(name, N_OBJ_HASH);
   obj_node *o;
   for (o = obj_table[h]; o; o = o->next)
      if (VG_(strcmp)(o->name, name) == 0) return o;
   o = CB_MALLOC("cb.fn.obj", sizeof *o);
   o->name   = VG_(strdup)("cb.fn.objname", name);
   o->number = ++distinct_objs;
   o->start  = di ? VG_(DebugInfo_get_text_avma)(di) : 0;
   o->size   = di ? VG_(DebugInfo_get_text_size)(di) : 0;
   o->offset = di ? VG_(DebugInfo_get_text_bias)(di) : 0;
   o->next   = obj_table[h];
   obj_table[h] = o;
   return o;
}

static file_node *get_file_node(obj_node *obj, const HChar *dir, const HChar *file)
{
   SizeT dl = VG_(strlen)(dir), fl = VG_(strlen)(file);
   HChar path[dl + 1 + fl + 1];
   UInt h;
   file_node *f;

   VG_(strcpy)(path, dir);
   if (dl > 0) VG_(strcat)(path, "/");
   VG_(strcat)(path, file);

   h = (str_hash(path, N_FILE_HASH) + obj->number) % N_FILE_HASH;
   for (f = file_table[h]; f; f = f->next)
      if (f->obj == obj && VG_(strcmp)(f->name, path) == 0) return f;
   f = CB_MALLOC("cb.fn.file", sizeof *f);
   f->name   = VG_(strdup)("cb.fn.filename", path);
   f->obj    = obj;
   f->number = ++distinct_files;
   f->next   = file_table[h];
   file_table[h] = f;
   return f;
}

static fn_node *get_fn_in_file(file_node *file, const HChar *name)
{
   UInt h = (str_hash(name, N_FN_HASH) + file->number) % N_FN_HASH;
   fn_node *fn;
   for (fn = fn_table[h]; fn; fn = fn->next)
      if (fn->file == file && VG_(strcmp)(fn->name, name) == 0) return fn;
   fn = CB_MALLOC("cb.fn.fn", sizeof *fn);
   VG_(memset)(fn, 0, sizeof *fn);
   fn->name   = VG_(strdup)("cb.fn.fnname", name);
   fn->file   = file;
   fn->number = ++cb_distinct_fns;
   fn->pop_on_jump = cb_clo.pop_on_jump;
   fn->separate_callers = cb_clo.separate_callers;
   fn->separate_recs    = cb_clo.separate_recs;
   fn->next   = fn_table[h];
   fn_table[h] = fn;
   return fn;
}

/* File and line of one instruction. Files are interned within the object
 * of the instruction's function. */
void cb_debug_pos(Addr a, file_node *fn_file, obj_node *obj,
                  UInt *line, file_node **file)
{
   const HChar *fname, *dname;
   UInt ln;
   DiEpoch ep = VG_(current_DiEpoch)();

   if (VG_(get_filename_linenum)(ep, a, &fname, &dname, &ln)) {
      *line = ln;
      *file = get_file_node(obj, dname ? dname : "", fname);
      if (fn_file && VG_(strcmp)((*file)->name, fn_file->name) == 0)
         *file = fn_file;
   } else {
      *line = 0;
      *file = fn_file;
   }
}

/* Name of code without a symbol: its address inside the object, with the
 * section kind, as the reference writes it. */
static const HChar *anonymous_fn_name(const BB *bb, HChar *buf)
{
   Int p = VG_(sprintf)(buf, "%#016lx", (UWord)(bb->addr - bb->obj->offset));
   VG_(sprintf)(buf + p, "%s",
                bb->sect_kind == Vg_SectData ? " [Data]" :
                bb->sect_kind == Vg_SectBSS  ? " [BSS]"  :
                bb->sect_kind == Vg_SectGOT  ? " [GOT]"  :
                bb->sect_kind == Vg_SectPLT  ? " [PLT]"  : "");
   return buf;
}

/* Function of a BB: the function of its first instruction. Attributes
 * (skip, pop-on-jump, per-function options) are set on first sight. */
fn_node *cb_get_fn_node(BB *bb)
{
   DiEpoch ep = VG_(current_DiEpoch)();
   const HChar *fname = NULL, *dname = NULL, *fnname = NULL;
   Bool have_line, have_fn;
   UInt line = 0;
   HChar buf[64];
   fn_node *fn;

   if (bb->fn) return bb->fn;

   /* Names returned by the debug-info queries live in buffers that the
    * next query may reuse: take the function name first, copy it, then
    * the file name. */
   have_fn = VG_(get_fnname)(ep, bb->addr, &fnname);
   if (!have_fn) {
      fnname = anonymous_fn_name(bb, buf);
   } else {
      const HChar *entry_name;
      if (VG_(get_fnname_if_entry)(ep, bb->addr, &entry_name))
         bb->is_entry = True;
      VG_(get_fnname)(ep, bb->addr, &fnname);
   }
   {
      SizeT n = VG_(strlen)(fnname);
      HChar *copy = VG_(malloc)("cb.fn.tmp", n + 1);
      VG_(strcpy)(copy, fnname);
      fnname = copy;
   }
   have_line = VG_(get_filename_linenum)(ep, bb->addr, &fname, &dname, &line);
   if (!have_line) { fname = "???"; line = 0; }
   if (!have_line || !dname) dname = "";

   fn = get_fn_in_file(get_file_node(bb->obj, dname, fname), fnname);
   VG_(free)((HChar *)fnname);
   if (!fn->configured) {
      fn->configured = True;
      if (bb->sect_kind == Vg_SectPLT) fn->skip = cb_clo.skip_plt;
      if (VG_(strncmp)(fn->name, RESOLVER_PREFIX,
                       sizeof RESOLVER_PREFIX - 1) == 0)
         fn->pop_on_jump = True;
      cb_fn_config_apply(fn);
      if (UNLIKELY(cb_clo.sharing)) fn->sharing_cut = cb_fs_fn_kind(fn->name);
   }
   bb->fn = fn;
   bb->line = line;
   return fn;
}

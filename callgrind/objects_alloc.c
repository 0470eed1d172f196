/* callgrind-bd: data objects -- observing allocations (--objects=yes).
 *
 * The client's allocator is neither replaced nor wrapped: the call
 * tracker already sees every call and return, so an allocation is read
 * off the guest registers when an allocator function is entered (its
 * arguments) and when its frame is popped (its result in RAX; the block
 * at the start of the next block runs before any instruction touches
 * RAX).  Nothing is added to the client, so addresses, cache behaviour
 * and every number of the profile stay exactly those of a run without
 * --objects (see docs/manual.md, "Data objects", for why a preloaded
 * wrapper library was not used).
 *
 * Anonymous mmaps outside the allocator (not MAP_FIXED) are heap blocks
 * too, named by the mmap's call site; munmap releases the blocks in its
 * range.
 *
 * Only the outermost allocator call counts: operator new calling malloc,
 * or realloc calling malloc, is one allocation (a chain inside an
 * allocator has in_alloc set).  The allocation site is the call site of
 * the allocator plus --object-callers call sites below it on the shadow
 * call stack; blocks from the same sites belong to one object.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "objects_int.h"
#include "libvex_guest_amd64.h"

typedef enum {
   AK_UNCLASSIFIED = 0, AK_NONE, AK_MALLOC, AK_CALLOC, AK_REALLOC,
   AK_REALLOCARRAY, AK_MEMALIGN, AK_POSIX_MEMALIGN, AK_FREE, AK_MMAP, AK_MUNMAP
} alloc_kind;

/*------------------------------------------------------------*/
/*--- Which functions allocate                             ---*/
/*------------------------------------------------------------*/

static const struct { const HChar *name; alloc_kind kind; } exact_names[] = {
   { "malloc", AK_MALLOC }, { "__libc_malloc", AK_MALLOC },
   { "valloc", AK_MALLOC }, { "__libc_valloc", AK_MALLOC },
   { "pvalloc", AK_MALLOC }, { "__libc_pvalloc", AK_MALLOC },
   { "calloc", AK_CALLOC }, { "__libc_calloc", AK_CALLOC },
   { "realloc", AK_REALLOC }, { "__libc_realloc", AK_REALLOC },
   { "reallocarray", AK_REALLOCARRAY }, { "__libc_reallocarray", AK_REALLOCARRAY },
   { "memalign", AK_MEMALIGN }, { "__libc_memalign", AK_MEMALIGN },
   { "aligned_alloc", AK_MEMALIGN }, { "__libc_aligned_alloc", AK_MEMALIGN },
   { "posix_memalign", AK_POSIX_MEMALIGN }, { "__posix_memalign", AK_POSIX_MEMALIGN },
   { "free", AK_FREE }, { "__libc_free", AK_FREE }, { "cfree", AK_FREE },
   /* anonymous mappings made outside the allocator (custom allocators'
    * arenas, large buffers) */
   { "mmap", AK_MMAP }, { "mmap64", AK_MMAP }, { "__mmap", AK_MMAP },
   { "__mmap64", AK_MMAP },
   { "munmap", AK_MUNMAP }, { "__munmap", AK_MUNMAP },
};

/* C++ operators, demangled (the default) or mangled (--demangle=no). */
static const struct { const HChar *prefix; alloc_kind kind; } prefixes[] = {
   { "operator new(", AK_MALLOC }, { "operator new[](", AK_MALLOC },
   { "_Znwm", AK_MALLOC }, { "_Znam", AK_MALLOC },
   { "operator delete(", AK_FREE }, { "operator delete[](", AK_FREE },
   { "_ZdlPv", AK_FREE }, { "_ZdaPv", AK_FREE },
};

static Bool has_prefix(const HChar *s, const HChar *p)
{
   return VG_(strncmp)(s, p, VG_(strlen)(p)) == 0;
}

/* Placement new only returns its second argument. */
static Bool is_placement_new(const HChar *name)
{
   return has_prefix(name, "_ZnwmPv") || has_prefix(name, "_ZnamPv")
          || VG_(strstr)(name, "new(unsigned long, void*)") != NULL
          || VG_(strstr)(name, "new[](unsigned long, void*)") != NULL;
}

static alloc_kind classify(const fn_node *fn)
{
   UInt i;
   for (i = 0; i < sizeof exact_names / sizeof exact_names[0]; i++)
      if (VG_(strcmp)(fn->name, exact_names[i].name) == 0) return exact_names[i].kind;
   if (is_placement_new(fn->name)) return AK_NONE;
   for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
      if (has_prefix(fn->name, prefixes[i].prefix)) return prefixes[i].kind;
   return AK_NONE;
}

static UChar *fn_kind;         /* by function number */
static UInt fn_kind_size;

static alloc_kind kind_of(const fn_node *fn)
{
   if (fn->number >= fn_kind_size) {
      UInt old = fn_kind_size, n = old ? old : 4096;
      while (n <= fn->number) n *= 2;
      fn_kind = VG_(realloc)("cb.obj.fnkind", fn_kind, n);
      VG_(memset)(fn_kind + old, 0, n - old);
      fn_kind_size = n;
   }
   if (fn_kind[fn->number] == AK_UNCLASSIFIED) fn_kind[fn->number] = classify(fn);
   return fn_kind[fn->number];
}

/*------------------------------------------------------------*/
/*--- Guest registers                                      ---*/
/*------------------------------------------------------------*/

static UWord guest_reg(Int offset)
{
   UWord v = 0;
   VG_(get_shadow_regs_area)(cb_cur.tid, (UChar *)&v, 0, offset, sizeof v);
   return v;
}

#define ARG(n) guest_reg((n) == 0 ? offsetof(VexGuestAMD64State, guest_RDI) \
                       : (n) == 1 ? offsetof(VexGuestAMD64State, guest_RSI) \
                       : (n) == 2 ? offsetof(VexGuestAMD64State, guest_RDX) \
                       : offsetof(VexGuestAMD64State, guest_RCX))
#define RESULT() guest_reg(offsetof(VexGuestAMD64State, guest_RAX))

/*------------------------------------------------------------*/
/*--- Allocation sites                                     ---*/
/*------------------------------------------------------------*/

#define SITE_HASH 4099
static cb_obj *site_table[SITE_HASH];

void cb_obj_site_pos(const cb_site *s, fn_node **fn, UInt *line, file_node **file)
{
   const instr_info *ii = &s->bb->instr[s->bb->jmp[s->jmp].instr];
   *fn = s->fn;
   *line = ii->line;
   *file = ii->file ? ii->file : s->bb->fn->file;
}

static const HChar *basename_of(const HChar *path)
{
   const HChar *slash = VG_(strrchr)(path, '/');
   return slash ? slash + 1 : path;
}

/* "fn (file:line) < caller (file:line) < ..." */
static HChar *site_name(const cb_site *sites, UInt n)
{
   SizeT size = 64, used = 0;
   HChar *buf;
   UInt i;
   for (i = 0; i < n; i++) {
      fn_node *fn; UInt line; file_node *file;
      cb_obj_site_pos(&sites[i], &fn, &line, &file);
      size += VG_(strlen)(fn->name) + VG_(strlen)(file->name) + 32;
   }
   buf = CB_MALLOC("cb.obj.sitename", size);
   buf[0] = '\0';
   for (i = 0; i < n; i++) {
      fn_node *fn; UInt line; file_node *file;
      cb_obj_site_pos(&sites[i], &fn, &line, &file);
      used += VG_(sprintf)(buf + used, "%s%s (%s:%u)", i ? " < " : "",
                           fn->name, basename_of(file->name), line);
   }
   return buf;
}

/* The sites of the allocator frame e: its call site, then the call
 * sites of the frames below it. */
static UInt collect_sites(const call_entry *e, cb_site *sites)
{
   const call_entry *bottom = cb_calls->entry;
   UInt n = 0, max = 1 + cb_clo.object_callers;
   for (; e >= bottom && n < max; e--) {
      if (!e->jcc) continue;              /* skipped function */
      BB *bb = e->jcc->from->bb;
      sites[n].bb = bb;
      sites[n].jmp = e->jcc->jmp;
      sites[n].addr = bb->addr + bb->instr[bb->jmp[e->jcc->jmp].instr].offset;
      sites[n].fn = cb_obj_fn_of(e->jcc->from);
      n++;
   }
   return n;
}

static Bool same_sites(const cb_obj *o, const cb_site *sites, UInt n)
{
   UInt i;
   if (o->n_sites != n) return False;
   for (i = 0; i < n; i++)
      if (o->sites[i].addr != sites[i].addr || o->sites[i].fn != sites[i].fn) return False;
   return True;
}

static cb_obj *site_object(const call_entry *e)
{
   cb_site sites[MAX_OBJECT_CALLERS + 1];
   UInt n = collect_sites(e, sites), i;
   UWord h = n;
   cb_obj *o;
   HChar *name;
   for (i = 0; i < n; i++) h = h * 31 + sites[i].addr;
   h %= SITE_HASH;
   for (o = site_table[h]; o; o = o->next_hash)
      if (same_sites(o, sites, n)) return o;
   name = site_name(sites, n);
   o = cb_obj_new(OK_HEAP, name);
   CB_FREE(name);
   o->n_sites = n;
   VG_(memcpy)(o->sites, sites, n * sizeof(cb_site));
   if (n > 0) {
      fn_node *fn; file_node *file;
      cb_obj_site_pos(&sites[0], &fn, &o->line, &file);
      o->file = file->name;
   } else {
      o->file = "???";
   }
   o->next_hash = site_table[h];
   site_table[h] = o;
   return o;
}

/*------------------------------------------------------------*/
/*--- Entering and leaving allocator calls                 ---*/
/*------------------------------------------------------------*/

void cb_obj_frame_pushed(call_entry *e, JCC *jcc, fn_node *to_fn, Bool skip)
{
   cb_chain *parent = e - cb_calls->entry > cb_cur.es->call_stack_bottom
                      ? (cb_chain *)e[-1].obj_chain : cb_obj_root_chain;
   alloc_kind k = skip || !jcc ? AK_NONE : kind_of(to_fn);
   Bool outermost = k != AK_NONE && !parent->in_alloc;

   e->obj_alloc_kind = 0;
   e->obj_chain = (skip || !jcc) ? parent : cb_obj_chain(parent, jcc, k != AK_NONE);
   cb_obj_chain_changed();
   if (!outermost) return;

   if (k == AK_FREE) {
      cb_obj_heap_remove(ARG(0));
      return;
   }
   if (k == AK_MUNMAP) {
      cb_obj_heap_remove_range(ARG(0), ARG(1));
      return;
   }
   /* only fresh anonymous memory: not a file, not MAP_FIXED (the dynamic
    * linker maps a library's .bss so; its statics must stay statics) */
   if (k == AK_MMAP && (!(ARG(3) & VKI_MAP_ANONYMOUS) || (ARG(3) & VKI_MAP_FIXED)))
      return;
   e->obj_alloc_kind = k;
   e->obj_alloc_site = site_object(e);
   switch (k) {
   case AK_MALLOC:         e->obj_alloc_arg[0] = ARG(0); break;
   case AK_CALLOC:         e->obj_alloc_arg[0] = ARG(0) * ARG(1); break;
   case AK_REALLOC:        e->obj_alloc_arg[0] = ARG(1); e->obj_alloc_arg[1] = ARG(0); break;
   case AK_REALLOCARRAY:   e->obj_alloc_arg[0] = ARG(1) * ARG(2); e->obj_alloc_arg[1] = ARG(0); break;
   case AK_MEMALIGN:       e->obj_alloc_arg[0] = ARG(1); break;
   case AK_POSIX_MEMALIGN: e->obj_alloc_arg[0] = ARG(2); e->obj_alloc_arg[1] = ARG(0); break;
   case AK_MMAP:           e->obj_alloc_arg[0] = ARG(1); break;
   default: break;
   }
}

/* realloc: the block keeps its object (the site that first allocated
 * it); realloc(NULL, n) allocates at the realloc's site. */
static void reallocated(call_entry *e, Addr result)
{
   Addr old = e->obj_alloc_arg[1];
   SizeT size = e->obj_alloc_arg[0];
   cb_obj *o = old ? cb_obj_heap_owner(old) : NULL;
   if (result == 0) {
      if (old && size == 0) cb_obj_heap_remove(old);   /* realloc(p, 0) frees */
      return;
   }
   if (old) cb_obj_heap_remove(old);
   if (o) {
      o->blocks--;                        /* the same block, moved */
      cb_obj_heap_add(result, size, o);
   } else {
      cb_obj_heap_add(result, size, e->obj_alloc_site);
   }
}

void cb_obj_frame_popping(call_entry *e)
{
   alloc_kind k = e->obj_alloc_kind;
   Addr result;
   cb_obj_chain_changed();
   if (k == 0) return;
   e->obj_alloc_kind = 0;
   result = RESULT();
   switch (k) {
   case AK_REALLOC:
   case AK_REALLOCARRAY:
      reallocated(e, result);
      break;
   case AK_MMAP:
      if (result != (Addr)-1 && result != 0)
         cb_obj_heap_add(result, e->obj_alloc_arg[0], e->obj_alloc_site);
      break;
   case AK_POSIX_MEMALIGN:
      if (result == 0)
         cb_obj_heap_add(*(Addr *)e->obj_alloc_arg[1], e->obj_alloc_arg[0], e->obj_alloc_site);
      break;
   default:
      if (result != 0) cb_obj_heap_add(result, e->obj_alloc_arg[0], e->obj_alloc_site);
      break;
   }
}

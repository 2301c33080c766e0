/* npjax._core._hostpath, helpers: the host limit of the current context, whether the caller
   is the user's code, and the result wrappers (``_hostpath.c`` describes the module). */

#include "_hostpath.h"

PyTypeObject *hp_last_number_type = NULL;

/* The host limit of the current context (``Context.host``), or -1; -2 on an error. The
   last context read outside a trace and its limit are kept (contexts are immutable tuples). */
static PyObject *kept_ctx = NULL;
static Py_ssize_t kept_limit;

Py_ssize_t hp_host_limit(void) {
    PyObject *ctx;
    if (PyContextVar_Get(hp_ctxvar, NULL, &ctx) < 0) return -2;
    if (ctx != NULL && ctx == kept_ctx) {
        Py_DECREF(ctx);
        return kept_limit;
    }
    Py_ssize_t limit = -1;
    if (ctx != NULL && PyTuple_Check(ctx) && PyTuple_GET_SIZE(ctx) >= 3) {
        limit = PyLong_AsSsize_t(PyTuple_GET_ITEM(ctx, 2));
        if (limit == -1 && PyErr_Occurred()) {
            Py_DECREF(ctx);
            return -2;
        }
    }
    if (ctx == NULL) return limit;
    if (limit < 0 || PyTuple_GET_ITEM(ctx, 1) != Py_None) {
        Py_DECREF(ctx);  /* (not kept: a trace's context would keep the trace alive) */
        return limit;
    }
    Py_XSETREF(kept_ctx, ctx);  /* (held: its address is the key) */
    kept_limit = limit;
    return limit;
}

/* Whether the innermost Python frame is the user's: its module is not npjax's (read from
   its globals, which needs no frame object; the last answer is kept for those globals). */
static PyObject *last_globals = NULL;  /* the last caller's module globals, and whether */
static int last_user = 0;              /* they are the user's (not npjax's) */

int hp_user_frame(void) {
    PyObject *globals = PyEval_GetGlobals();  /* borrowed */
    if (globals == NULL) return 0;
    if (globals == last_globals) return last_user;
    PyObject *name = PyDict_GetItemWithError(globals, hp_npjax_key);  /* borrowed */
    int inside = 0;
    if (name == NULL) {
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
    }
    else if (PyUnicode_Check(name)) {
        inside = PyUnicode_Compare(name, hp_npjax_name) == 0 ||
                 PyUnicode_Tailmatch(name, hp_npjax_prefix, 0, PY_SSIZE_T_MAX, -1) == 1;
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
    }
    Py_INCREF(globals);  /* (kept alive: its address is the key) */
    Py_XSETREF(last_globals, globals);
    last_user = !inside;
    return last_user;
}

/* Result wrappers come from a small free list of ``npjax.ndarray`` objects: ``hp_arr_dealloc``
   (ndarray's ``tp_dealloc`` once configured) keeps up to ``FREE_MAX`` of them, untracked,
   and ``new_array`` hands them out again. A kept object holds the value every new host
   result has in most slots (``hp_fixed``), so only the others are filled and cleared: this
   spares the allocator, the zeroing and most reference counting on the hot paths. */
#define FREE_MAX 32
static PyObject *free_arrays[FREE_MAX];
static int n_free = 0;
Py_ssize_t hp_off_weaklist;
Py_ssize_t hp_state_offs[NSTATE];  /* every slot but ``__weakref__`` */
PyObject *hp_fixed[NSTATE];  /* a kept object's slot values (NULL: filled by the maker) */

/* An array ``hp_arr_dealloc`` meant to keep, when freeing its slots filled the list: its slots
   hold the ``hp_fixed`` values. */
static void COLD free_kept(PyObject *self) {
    for (int i = 0; i < NSTATE; i++) Py_CLEAR(SLOT(self, hp_state_offs[i]));
    hp_Arr->tp_free(self);
    Py_DECREF(hp_Arr);
}

/* ``tp_dealloc`` of ``npjax.ndarray`` and (as their base's) of its Python subclasses, whose
   own slots, dict and finalizer Python's ``subtype_dealloc`` has handled by then. */
void hp_arr_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (*(PyObject **)((char *)self + hp_off_weaklist) != NULL) PyObject_ClearWeakRefs(self);
    int keep = tp == hp_Arr && n_free < FREE_MAX;
    for (int i = 0; i < NSTATE; i++) {
        PyObject **slot = &SLOT(self, hp_state_offs[i]), *old = *slot;
        PyObject *want = keep ? hp_fixed[i] : NULL;
        if (old != want) {
            *slot = Py_XNewRef(want);
            Py_XDECREF(old);  /* (may free other arrays into the list) */
        }
    }
    if (!keep) {
        tp->tp_free(self);
        Py_DECREF(tp);
    }
    else if (n_free < FREE_MAX) free_arrays[n_free++] = self;  /* (it keeps the type) */
    else free_kept(self);
}

/* A new ``npjax.ndarray`` with the ``hp_fixed`` slot values; the caller fills the others.
   ``tracked``: whether the cyclic GC tracks it (see ``hp_new_owner``). */
static PyObject *new_array(int tracked) {
    PyObject *new;
    if (n_free > 0) {
        new = free_arrays[--n_free];
        Py_SET_REFCNT(new, 1);
        if (tracked) PyObject_GC_Track(new);
        return new;
    }
    if ((new = hp_Arr->tp_alloc(hp_Arr, 0)) == NULL) return NULL;  /* (tracked) */
    if (!tracked) PyObject_GC_UnTrack(new);
    for (int i = 0; i < NSTATE; i++) SLOT(new, hp_state_offs[i]) = Py_XNewRef(hp_fixed[i]);
    return new;
}

/* A new host owner of NumPy's ``data``. The cyclic GC does not track it (as CPython leaves
   a tuple of atoms untracked): it holds NumPy's array, which is no GC container, and atoms
   (None, False, 0, ()); npjax's later writes to an owner's slots are device values, NumPy
   arrays and atoms too. So no cycle runs through it, and it is no view of a root
   (``detach_views`` finds a root's views by ``gc.get_referrers``; views stay tracked).
   Tracking it cost a third of the wrapper (the GC list's links, at making and freeing). */
PyObject *hp_new_owner(PyObject *data) {
    PyObject *new = new_array(0);
    if (new == NULL) return NULL;
    SLOT(new, hp_off_value) = Py_NewRef(data);
    SLOT(new, hp_off_layout) = Py_NewRef(data);
    SLOT(new, hp_off_base) = Py_NewRef(Py_None);
    SLOT(new, hp_off_lens) = Py_NewRef(hp_empty_tuple);
    return new;
}

PyObject *hp_new_view(PyObject *root, PyObject *data) {
    PyObject *new = new_array(1);  /* (tracked: it holds its root) */
    if (new == NULL) return NULL;
    SLOT(new, hp_off_value) = Py_NewRef(Py_None);
    SLOT(new, hp_off_layout) = Py_NewRef(data);
    SLOT(new, hp_off_base) = Py_NewRef(root);
    SLOT(new, hp_off_lens) = Py_NewRef(Py_None);
    return new;
}

/* npjax._core._hostpath: the host route's commonest operations in C (issue 37).

   ``ArrayBase`` here is the base class of ``npjax.ndarray`` when this module is built (the
   pure-Python ``ArrayBase`` of ``_array_base.py`` otherwise). Its slots run the common case
   of ``a + b``, ``a - b``, ``a * b``, ``a / b``, ``@``, ``&``, ``|``, ``^`` (and reflected,
   and in place), ``a[index]`` and ``a[index] = number`` on host arrays: NumPy's own operation on the NumPy data, the
   result wrapped as ``host_owner``/``host_view`` wrap it. Everything else calls the Python
   member it replaces (``_fast.enable`` hands them over and removes them from the class),
   so the Python code stays the one definition of what these operations do.

   No Python frame sits between the user's line and NumPy here, so NumPy's warnings name
   the user's line as NumPy's own would: no error-state switch is needed. When the calling
   frame is npjax's own code the Python member runs (it names the user's line itself).

   NumPy arrays are read through the first fields of NumPy's ``PyArrayObject_fields``
   (unchanged since NumPy 1.7); ``configure`` checks them against Python's answers on
   sample arrays and leaves the module disabled if they differ. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

typedef struct {
    PyObject_HEAD
    char *data;
    int nd;
    Py_ssize_t *dimensions;
    Py_ssize_t *strides;
    PyObject *base;
    PyObject *descr;
    int flags;
} NumpyFields;

/* The first fields of NumPy's ``PyArray_Descr`` (unchanged since NumPy 1.0). */
typedef struct {
    PyObject_HEAD
    PyTypeObject *typeobj;
    char kind;
} DescrFields;

#define NP(o) ((NumpyFields *)(o))
#define NP_WRITEABLE 0x0400  /* NPY_ARRAY_WRITEABLE */
#define NP_KIND(o) (((DescrFields *)NP(o)->descr)->kind)
#if defined(__GNUC__) || defined(__clang__)
#define COLD __attribute__((noinline, cold))  /* (off the hot paths' code) */
#else
#define COLD
#endif
#define SLOT(o, off) (*(PyObject **)((char *)(o) + (off)))

static PyTypeObject *Arr = NULL;      /* npjax.ndarray */
static PyTypeObject *NpArr = NULL;    /* numpy.ndarray */
static PyObject *ctxvar = NULL;       /* npjax's execution context (``_context._var``) */
static PyObject *f8 = NULL, *b1 = NULL, *i8 = NULL;  /* dtypes */
static PyObject *device_dtypes = NULL;  /* ``_route._DEVICE_DTYPE`` */
static PyObject *quiet_scalars = NULL;  /* NumPy scalar type -> its dtype */
static PyObject *number_scalars = NULL; /* NumPy's number scalar types (a frozenset) */
static PyObject *place_new = NULL;      /* ``_route.place_new`` */
static PyObject *place_got = NULL;      /* ``_element_access._host_got`` */
static PyObject *empty_tuple = NULL, *zero = NULL, *one = NULL;
static Py_ssize_t elide_items = 0;
static int enabled = 0;
static Py_ssize_t off_value, off_layout, off_root_shape, off_base, off_cache, off_lens,
    off_scalar, off_mine, off_readonly, off_version;
static PyObject *last_globals = NULL;  /* the last caller's module globals, and whether */
static int last_user = 0;              /* they are the user's (not npjax's) */
static PyObject *npjax_key = NULL, *npjax_name = NULL, *npjax_prefix = NULL;

enum { ADD, SUB, MUL, DIV, MATMUL, AND, OR, XOR, NOPS };
static const char *names[NOPS][3] = {
    {"__add__", "__radd__", "__iadd__"}, {"__sub__", "__rsub__", "__isub__"},
    {"__mul__", "__rmul__", "__imul__"}, {"__truediv__", "__rtruediv__", "__itruediv__"},
    {"__matmul__", "__rmatmul__", "__imatmul__"}, {"__and__", "__rand__", "__iand__"},
    {"__or__", "__ror__", "__ior__"}, {"__xor__", "__rxor__", "__ixor__"}};
/* NumPy's ufuncs of the operators: what NumPy's own ``x + y`` calls on arrays (past checks
   that cannot apply here: deferring to another type, temporary elision) */
static PyObject *np_ops[NOPS];
static binaryfunc inplace[NOPS] = {PyNumber_InPlaceAdd, PyNumber_InPlaceSubtract,
                                   PyNumber_InPlaceMultiply, PyNumber_InPlaceTrueDivide,
                                   PyNumber_InPlaceMatrixMultiply, PyNumber_InPlaceAnd,
                                   PyNumber_InPlaceOr, PyNumber_InPlaceXor};
static PyObject *grows_off_host = NULL;  /* ``_route.grows_off_host`` */
/* NumPy's temporary elision (``_host_paths._ELIDABLE``, ``_temporary``): the dtype kinds
   each operator's member (0) and reflected member (1) may write into a temporary of (a
   string; NULL: never), the byte limit, the opcodes that apply an operator, the references
   a temporary and its buffer have here, and the elisions done per operator (for tests). */
static char *elide_kinds[NOPS][2], elide_kind_text[NOPS][2][16];
static Py_ssize_t elide_bytes = 0, temporary_refs = 1, buffer_refs = 2;
static char binary_opcode[256];
static Py_ssize_t elided[NOPS];
static PyObject *itemsize_name = NULL, *dtype_name = NULL;
static PyObject *fb[NOPS][3];    /* the Python members */
static PyObject *cnt[NOPS][3];   /* their count cells */
static Py_ssize_t pending[NOPS][3];  /* their host calls not yet in the cells */
static PyObject *fb_getitem = NULL, *fb_setitem = NULL, *fb_delitem = NULL;
static PyTypeObject UfuncBaseType;  /* (below) */

/* --- helpers ------------------------------------------------------------------------- */

static Py_ssize_t np_size(PyObject *x) {
    Py_ssize_t n = 1;
    for (int i = 0; i < NP(x)->nd; i++) n *= NP(x)->dimensions[i];
    return n;
}

static int same_shape(PyObject *x, PyObject *y) {
    int nd = NP(x)->nd;
    if (NP(y)->nd != nd) return 0;
    for (int i = 0; i < nd; i++)
        if (NP(x)->dimensions[i] != NP(y)->dimensions[i]) return 0;
    return 1;
}

/* The NumPy data of a host array that is not a scalar (a host view's NumPy view), or NULL
   (a device array, a scalar, anything else). ``root``/``value``: its root and the root's
   data, when asked. */
static PyObject *host_data(PyObject *a, PyObject **root, PyObject **value) {
    PyObject *v = SLOT(a, off_value);
    if (v != NULL && Py_TYPE(v) == NpArr) {
        if (SLOT(a, off_scalar) != Py_False) return NULL;
        if (root) { *root = a; *value = v; }
        return v;
    }
    if (v != Py_None) return NULL;  /* a device owner */
    PyObject *base = SLOT(a, off_base);
    if (base == NULL || Py_TYPE(base) != Arr) return NULL;
    PyObject *bv = SLOT(base, off_value);
    if (bv == NULL || Py_TYPE(bv) != NpArr) return NULL;
    PyObject *layout = SLOT(a, off_layout);
    if (layout == NULL || Py_TYPE(layout) != NpArr || SLOT(a, off_scalar) != Py_False)
        return NULL;
    if (root) { *root = base; *value = bv; }
    return layout;
}

/* The host limit of the current context (``Context.host``), or -1; -2 on an error. The
   last context read outside a trace and its limit are kept (contexts are immutable tuples). */
static PyObject *kept_ctx = NULL;
static Py_ssize_t kept_limit;

static Py_ssize_t host_limit(void) {
    PyObject *ctx;
    if (PyContextVar_Get(ctxvar, NULL, &ctx) < 0) return -2;
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
static int user_frame(void) {
    PyObject *globals = PyEval_GetGlobals();  /* borrowed */
    if (globals == NULL) return 0;
    if (globals == last_globals) return last_user;
    PyObject *name = PyDict_GetItemWithError(globals, npjax_key);  /* borrowed */
    int inside = 0;
    if (name == NULL) {
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
    }
    else if (PyUnicode_Check(name)) {
        inside = PyUnicode_Compare(name, npjax_name) == 0 ||
                 PyUnicode_Tailmatch(name, npjax_prefix, 0, PY_SSIZE_T_MAX, -1) == 1;
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

/* Host calls are counted here and added to their Python count cells when Python reads the
   counts (``flush_counts``, called by ``_stats.host_counts`` and ``reset_stats``). */
static int add_to_cell(PyObject *cell, Py_ssize_t n) {
    if (n == 0) return 0;
    PyObject *more = PyLong_FromSsize_t(n);
    if (more == NULL) return -1;
    PyObject *sum = PyNumber_Add(PyList_GET_ITEM(cell, 0), more);
    Py_DECREF(more);
    if (sum == NULL) return -1;
    PyObject *old = PyList_GET_ITEM(cell, 0);
    PyList_SET_ITEM(cell, 0, sum);
    Py_DECREF(old);
    return 0;
}

/* Result wrappers come from a small free list of ``npjax.ndarray`` objects: ``arr_dealloc``
   (ndarray's ``tp_dealloc`` once configured) keeps up to ``FREE_MAX`` of them, untracked,
   and ``new_array`` hands them out again. A kept object holds the value every new host
   result has in most slots (``fixed``), so only the others are filled and cleared: this
   spares the allocator, the zeroing and most reference counting on the hot paths. */
#define FREE_MAX 32
static PyObject *free_arrays[FREE_MAX];
static int n_free = 0;
static Py_ssize_t off_weaklist;
enum { NSTATE = 10 };
static Py_ssize_t state_offs[NSTATE];  /* every slot but ``__weakref__`` */
static PyObject *fixed[NSTATE];  /* a kept object's slot values (NULL: filled by the maker) */

/* An array ``arr_dealloc`` meant to keep, when freeing its slots filled the list: its slots
   hold the ``fixed`` values. */
static void COLD free_kept(PyObject *self) {
    for (int i = 0; i < NSTATE; i++) Py_CLEAR(SLOT(self, state_offs[i]));
    Arr->tp_free(self);
    Py_DECREF(Arr);
}

/* ``tp_dealloc`` of ``npjax.ndarray`` and (as their base's) of its Python subclasses, whose
   own slots, dict and finalizer Python's ``subtype_dealloc`` has handled by then. */
static void arr_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (*(PyObject **)((char *)self + off_weaklist) != NULL) PyObject_ClearWeakRefs(self);
    int keep = tp == Arr && n_free < FREE_MAX;
    for (int i = 0; i < NSTATE; i++) {
        PyObject **slot = &SLOT(self, state_offs[i]), *old = *slot;
        PyObject *want = keep ? fixed[i] : NULL;
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

/* A new ``npjax.ndarray`` with the ``fixed`` slot values; the caller fills the others.
   ``tracked``: whether the cyclic GC tracks it (see ``new_owner``). */
static PyObject *new_array(int tracked) {
    PyObject *new;
    if (n_free > 0) {
        new = free_arrays[--n_free];
        Py_SET_REFCNT(new, 1);
        if (tracked) PyObject_GC_Track(new);
        return new;
    }
    if ((new = Arr->tp_alloc(Arr, 0)) == NULL) return NULL;  /* (tracked) */
    if (!tracked) PyObject_GC_UnTrack(new);
    for (int i = 0; i < NSTATE; i++) SLOT(new, state_offs[i]) = Py_XNewRef(fixed[i]);
    return new;
}

/* A new host owner of NumPy's ``data``. The cyclic GC does not track it (as CPython leaves
   a tuple of atoms untracked): it holds NumPy's array, which is no GC container, and atoms
   (None, False, 0, ()); npjax's later writes to an owner's slots are device values, NumPy
   arrays and atoms too. So no cycle runs through it, and it is no view of a root
   (``detach_views`` finds a root's views by ``gc.get_referrers``; views stay tracked).
   Tracking it cost a third of the wrapper (the GC list's links, at making and freeing). */
static PyObject *new_owner(PyObject *data) {
    PyObject *new = new_array(0);
    if (new == NULL) return NULL;
    SLOT(new, off_value) = Py_NewRef(data);
    SLOT(new, off_layout) = Py_NewRef(data);
    SLOT(new, off_base) = Py_NewRef(Py_None);
    SLOT(new, off_lens) = Py_NewRef(empty_tuple);
    return new;
}

static PyObject *new_view(PyObject *root, PyObject *data) {
    PyObject *new = new_array(1);  /* (tracked: it holds its root) */
    if (new == NULL) return NULL;
    SLOT(new, off_value) = Py_NewRef(Py_None);
    SLOT(new, off_layout) = Py_NewRef(data);
    SLOT(new, off_base) = Py_NewRef(root);
    SLOT(new, off_lens) = Py_NewRef(Py_None);
    return new;
}

static PyObject *call2(PyObject *fn, PyObject *a, PyObject *b) {
    PyObject *args[2] = {a, b};
    return PyObject_Vectorcall(fn, args, 2, NULL);
}

/* ``_route.place_new(result, operands, limit)`` for a result NumPy gave (the reference
   is taken), its common case in C: a new array of a device dtype within the limit is a new
   host owner; a NumPy scalar stays as it is. */
static PyObject *placed(PyObject *result, Py_ssize_t limit, Py_ssize_t n,
                        PyObject *const *operands) {
    if (Py_TYPE(result) == NpArr) {
        PyObject *dtype = NP(result)->descr;
        int device = dtype == f8 || dtype == b1;
        if (!device) {
            PyObject *known = PyDict_GetItemWithError(device_dtypes, dtype);  /* borrowed */
            if (known == NULL && PyErr_Occurred()) {
                Py_DECREF(result);
                return NULL;
            }
            device = known == Py_True;
        }
        if (device && NP(result)->base == NULL && np_size(result) <= limit) {
            PyObject *new = new_owner(result);
            Py_DECREF(result);
            return new;
        }
    }
    else if (!PyTuple_Check(result)) return result;  /* a NumPy scalar */
    PyObject *args = PyTuple_New(n), *lim = PyLong_FromSsize_t(limit), *r = NULL;
    if (args && lim) {
        for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(args, i, Py_NewRef(operands[i]));
        r = PyObject_Vectorcall(place_new, (PyObject *[]){result, args, lim}, 3, NULL);
    }
    Py_XDECREF(args);
    Py_XDECREF(lim);
    Py_DECREF(result);
    return r;
}

/* ``member(self, *args, **kw)`` of a Python member handed over (``args`` by the vectorcall
   protocol, the keywords' values after the positional ones). */
static PyObject *call_member(PyObject *member, PyObject *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames) {
    if (member == NULL) {
        PyErr_SetString(PyExc_TypeError, "npjax: the Python member is not installed");
        return NULL;
    }
    Py_ssize_t all = nargs + (kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames)) + 1;
    PyObject *small[16], **stack = small;
    if (all > 16 && (stack = PyMem_Malloc(all * sizeof(PyObject *))) == NULL)
        return PyErr_NoMemory();
    stack[0] = self;
    for (Py_ssize_t i = 1; i < all; i++) stack[i] = args[i - 1];
    PyObject *r = PyObject_Vectorcall(member, stack, nargs + 1, kwnames);
    if (stack != small) PyMem_Free(stack);
    return r;
}

/* --- binary operators ---------------------------------------------------------------- */

/* A number operand NumPy gets as it is: a Python float or int (not a bool). */
#define PLAIN_NUMBER(o) (PyFloat_CheckExact(o) || PyLong_CheckExact(o))

/* An operand NumPy gets as it is: a Python float or int, or NumPy's number scalar
   (``_host_paths.host_data``'s numbers). */
static PyTypeObject *last_number_type = NULL;  /* the last type found there (borrowed) */

static int number_operand(PyObject *o) {
    if (PLAIN_NUMBER(o)) return 1;
    if (Py_TYPE(o) == last_number_type) return 1;  /* (the set is frozen and holds it) */
    int found = PySet_Contains(number_scalars, (PyObject *)Py_TYPE(o));
    if (found < 0) {
        PyErr_Clear();
        return 0;
    }
    if (found) last_number_type = Py_TYPE(o);
    return found;
}

/* The dtype NumPy's scalar type ``t`` writes without a cast (``quiet_scalars``; borrowed),
   or NULL (an error set, or none). The last type found and its dtype are kept: the mapping
   is configure's own copy, never changed, which holds both. */
static PyTypeObject *last_quiet_type = NULL;
static PyObject *last_quiet_dtype = NULL;

static PyObject *quiet_dtype(PyTypeObject *t) {
    if (t == last_quiet_type) return last_quiet_dtype;
    PyObject *dtype = PyDict_GetItemWithError(quiet_scalars, (PyObject *)t);
    if (dtype != NULL) {
        last_quiet_type = t;
        last_quiet_dtype = dtype;
    }
    return dtype;
}

/* Whether the shapes of ``x`` and ``y`` broadcast to more elements than either has (or
   do not broadcast: -1): only then may ``_route.grows_off_host`` say yes. */
static int grows(PyObject *x, PyObject *y) {
    int nx = NP(x)->nd, ny = NP(y)->nd, n = nx > ny ? nx : ny;
    Py_ssize_t size = 1;
    for (int i = 1; i <= n; i++) {
        Py_ssize_t a = i <= nx ? NP(x)->dimensions[nx - i] : 1;
        Py_ssize_t b = i <= ny ? NP(y)->dimensions[ny - i] : 1;
        if (a != b && a != 1 && b != 1) return 0;  /* (-1 elements: NumPy's error) */
        size *= a == 1 ? b : a;
    }
    Py_ssize_t xs = np_size(x), ys = np_size(y);
    return size > (xs > ys ? xs : ys);
}

/* Whether ``self <op> other`` may write its result into ``self``'s data ``data`` (``other``
   as NumPy gets it), as the Python member decides it (``_host_paths._temporary``, whose
   reference counts include three of its own frames'): 1 yes, 0 no, -1 an error, 2 where
   this build cannot read the calling frame. Called from the user's code (``user_frame``). */
static int temporary(int op, int side, PyObject *self, PyObject *data, PyObject *other) {
    const char *kinds = elide_kinds[op][side];
    if (kinds == NULL || strchr(kinds, NP_KIND(data)) == NULL) return 0;
    PyObject *size = PyObject_GetAttr(NP(data)->descr, itemsize_name);
    if (size == NULL) return -1;
    Py_ssize_t itemsize = PyLong_AsSsize_t(size);
    Py_DECREF(size);
    if (itemsize == -1 && PyErr_Occurred()) return -1;
    if (np_size(data) * itemsize < elide_bytes) return 0;
    if (Py_TYPE(other) == NpArr) {
        if (NP(other)->descr != NP(data)->descr) {
            int ne = PyObject_RichCompareBool(NP(other)->descr, NP(data)->descr, Py_NE);
            if (ne != 0) return ne < 0 ? -1 : 0;
        }
        if (NP(other)->nd != 0 && !same_shape(other, data)) return 0;
    }
    else if (PLAIN_NUMBER(other)) {
        if (NP_KIND(data) != 'f' && NP_KIND(data) != 'c') return 0;
    }
    else {  /* NumPy's number scalar: its dtype */
        PyObject *dt = PyObject_GetAttr(other, dtype_name);
        if (dt == NULL) return -1;
        int ne = PyObject_RichCompareBool(dt, NP(data)->descr, Py_NE);
        Py_DECREF(dt);
        if (ne != 0) return ne < 0 ? -1 : 0;
    }
    PyObject *readonly = SLOT(self, off_readonly);
    if (SLOT(self, off_cache) != Py_None) return 0;
    if (readonly != Py_False) {
        int ro = PyObject_IsTrue(readonly);
        if (ro != 0) return ro < 0 ? -1 : 0;
    }
    if (NP(data)->base != NULL || !(NP(data)->flags & NP_WRITEABLE)) return 0;
    if (Py_REFCNT(self) > temporary_refs || Py_REFCNT(data) > buffer_refs) return 0;
#if PY_VERSION_HEX >= 0x030B0000
    PyFrameObject *frame = PyEval_GetFrame();  /* borrowed: the code applying the operator */
    if (frame == NULL) return 0;
    PyCodeObject *code = PyFrame_GetCode(frame);
    PyObject *co_code = PyCode_GetCode(code);
    Py_DECREF(code);
    if (co_code == NULL) return -1;
    int lasti = PyFrame_GetLasti(frame), applies = 0;
    if (lasti >= 0 && lasti < PyBytes_GET_SIZE(co_code))
        applies = binary_opcode[(unsigned char)PyBytes_AS_STRING(co_code)[lasti]];
    Py_DECREF(co_code);
    return applies;
#else
    return 2;
#endif
}

/* The fast case of ``left <op> right`` (in place when ``in_place``), or NULL with no error
   set when the Python member must run. */
static PyObject *fast_binary(int op, PyObject *left, PyObject *right, int in_place,
                             int *done) {
    PyObject *x, *y, *self, *other;
    Py_ssize_t size, items;
    int side;
    *done = 0;
    if (!enabled) return NULL;
    if (Py_TYPE(left) == Arr) {
        self = left, other = right, side = in_place ? 2 : 0;
        x = host_data(left, NULL, NULL);
        if (x == NULL) return NULL;
        size = items = np_size(x);
        if (Py_TYPE(right) == Arr) {
            y = host_data(right, NULL, NULL);
            if (y == NULL) return NULL;
            size *= np_size(y);  /* (bounds an elementwise result's size) */
        }
        else if (number_operand(right)) y = right;
        else return NULL;
    }
    else if (Py_TYPE(right) == Arr && !in_place && number_operand(left)) {
        self = right, other = left, side = 1;
        y = host_data(right, NULL, NULL);
        if (y == NULL) return NULL;
        x = left;
        size = items = np_size(y);
    }
    else return NULL;
    Py_ssize_t limit = host_limit();
    if (limit == -2) { *done = 1; return NULL; }
    if (limit < 0 || !user_frame()) return NULL;
    if (size > limit && Py_TYPE(x) == NpArr && Py_TYPE(y) == NpArr && !same_shape(x, y) &&
        grows(x, y)) {
        /* a result that may leave the host: ``_route.grows_off_host`` decides */
        PyObject *lim = PyLong_FromSsize_t(limit);
        if (lim == NULL) { *done = 1; return NULL; }
        PyObject *args[3] = {x, y, lim};
        PyObject *grows = PyObject_Vectorcall(grows_off_host, args, 3, NULL);
        Py_DECREF(lim);
        if (grows == NULL) { *done = 1; return NULL; }
        int off = PyObject_IsTrue(grows);
        Py_DECREF(grows);
        if (off < 0) { *done = 1; return NULL; }
        if (off) return NULL;
    }
    int elide = 0;
    if (!in_place && items >= elide_items) {
        elide = temporary(op, side, self, side == 1 ? y : x, side == 1 ? x : y);
        if (elide < 0) { *done = 1; return NULL; }
        if (elide > 1) return NULL;  /* (no frame read here: Python's member decides) */
    }
    pending[op][side]++;
    *done = 1;
    PyObject *result;
    if (elide) {  /* written into the temporary's data: NumPy's in-place operator */
        elided[op]++;
        result = side == 1 ? inplace[op](y, x) : inplace[op](x, y);
    }
    /* NumPy's operator on the NumPy operands, in the user's order */
    else result = in_place ? inplace[op](x, y) : call2(np_ops[op], x, y);
    if (result == NULL) return NULL;
    if (result == (side == 1 ? y : x)) {  /* in place */
        Py_DECREF(result);
        return Py_NewRef(self);
    }
    return placed(result, limit, 2, (PyObject *[]){self, other});
}

/* Python's protocol for a binary slot shared by a type's ``__op__`` and ``__rop__``
   (``SLOT1BINFULL``): the Python members, ``left``'s first. */
static PyObject *slow_binary(int op, PyObject *left, PyObject *right) {
    if (Py_TYPE(left) == Arr) {
        PyObject *r = call2(fb[op][0], left, right);
        if (r != Py_NotImplemented || Py_TYPE(right) == Arr) return r;
        Py_DECREF(r);
    }
    if (Py_TYPE(right) == Arr) return call2(fb[op][1], right, left);
    Py_RETURN_NOTIMPLEMENTED;
}

#define BINARY(NAME, OP)                                                                  \
    static PyObject *NAME(PyObject *left, PyObject *right) {                             \
        int done;                                                                        \
        PyObject *r = fast_binary(OP, left, right, 0, &done);                            \
        if (r != NULL || done) return r;                                                 \
        return slow_binary(OP, left, right);                                             \
    }                                                                                    \
    static PyObject *NAME##_inplace(PyObject *left, PyObject *right) {                   \
        int done;                                                                        \
        PyObject *r = fast_binary(OP, left, right, 1, &done);                            \
        if (r != NULL || done) return r;                                                 \
        return call2(fb[OP][2], left, right);                                            \
    }

BINARY(nb_add, ADD)
BINARY(nb_sub, SUB)
BINARY(nb_mul, MUL)
BINARY(nb_div, DIV)
BINARY(nb_matmul, MATMUL)
BINARY(nb_and, AND)
BINARY(nb_or, OR)
BINARY(nb_xor, XOR)

/* --- comparisons and unary operators -------------------------------------------------- */

static const char *cmp_names[6] = {"__lt__", "__le__", "__eq__", "__ne__", "__gt__", "__ge__"};
static PyObject *fb_cmp[6], *cnt_cmp[6];
static Py_ssize_t pending_cmp[6];
enum { NEG, POS, ABS, INV, NUNARY };
static const char *unary_names[NUNARY] = {"__neg__", "__pos__", "__abs__", "__invert__"};
static unaryfunc unary_ops[NUNARY] = {PyNumber_Negative, PyNumber_Positive, PyNumber_Absolute,
                                      PyNumber_Invert};
static PyObject *fb_unary[NUNARY], *cnt_unary[NUNARY];
static Py_ssize_t pending_unary[NUNARY];

static PyObject *tp_richcompare(PyObject *self, PyObject *other, int op) {
    if (enabled && Py_TYPE(self) == Arr) {
        PyObject *x = host_data(self, NULL, NULL), *y = NULL;
        Py_ssize_t size = 0;
        if (x != NULL) {
            size = np_size(x);
            if (Py_TYPE(other) == Arr) {
                y = host_data(other, NULL, NULL);
                if (y != NULL) size *= np_size(y);
            }
            else if (number_operand(other)) y = other;
        }
        if (y != NULL) {
            Py_ssize_t limit = host_limit();
            if (limit == -2) return NULL;
            if (limit >= 0 && size <= limit && user_frame()) {
                pending_cmp[op]++;
                PyObject *result = PyObject_RichCompare(x, y, op);  /* NumPy's */
                if (result == NULL) return NULL;
                return placed(result, limit, 2, (PyObject *[]){self, other});
            }
        }
    }
    if (fb_cmp[op] == NULL) Py_RETURN_NOTIMPLEMENTED;
    return call2(fb_cmp[op], self, other);
}

static PyObject *unary(int op, PyObject *self) {
    if (enabled && Py_TYPE(self) == Arr) {
        PyObject *x = host_data(self, NULL, NULL);
        if (x != NULL) {
            Py_ssize_t limit = host_limit();
            if (limit == -2) return NULL;
            if (limit >= 0 && user_frame()) {
                pending_unary[op]++;
                PyObject *result = unary_ops[op](x);  /* NumPy's */
                if (result == NULL) return NULL;
                return placed(result, limit, 1, &self);
            }
        }
    }
    return PyObject_CallOneArg(fb_unary[op], self);
}

static PyObject *nb_negative(PyObject *self) { return unary(NEG, self); }
static PyObject *nb_positive(PyObject *self) { return unary(POS, self); }
static PyObject *nb_absolute(PyObject *self) { return unary(ABS, self); }
static PyObject *nb_invert(PyObject *self) { return unary(INV, self); }

/* --- element access ------------------------------------------------------------------ */

/* A part of an index as NumPy gets it on the host route (``_element_access._host_part``;
   borrowed), or NULL: an int, a slice, None, Ellipsis, NumPy's array or number scalar as
   it is, a host array's data (not a scalar's). */
static PyObject *index_part(PyObject *k) {
    if (PyLong_CheckExact(k) || PySlice_Check(k) || k == Py_None || k == Py_Ellipsis ||
        Py_TYPE(k) == NpArr)
        return k;
    if (Py_TYPE(k) == Arr) return host_data(k, NULL, NULL);
    return number_operand(k) && !PyFloat_CheckExact(k) ? k : NULL;
}

/* An index as NumPy gets it on the host route (``_element_access._host_index``), or NULL
   (no error set) when the Python member must run: ints, slices, None, Ellipsis, host arrays
   (their data), NumPy's arrays and number scalars, and tuples of these. Borrowed, or a new
   tuple (``*owned`` set) for a tuple holding host arrays. */
static PyObject *host_index(PyObject *index, int *owned) {
    *owned = 0;
    if (PyLong_CheckExact(index) || PySlice_Check(index)) return index;
    if (!PyTuple_CheckExact(index)) return index_part(index);
    Py_ssize_t n = PyTuple_GET_SIZE(index), arrays = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *k = PyTuple_GET_ITEM(index, i), *part = index_part(k);
        if (part == NULL) return NULL;
        arrays += part != k;
    }
    if (arrays == 0) return index;
    PyObject *key = PyTuple_New(n);
    if (key == NULL) {
        PyErr_Clear();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(key, i, Py_NewRef(index_part(PyTuple_GET_ITEM(index, i))));
    *owned = 1;
    return key;
}

static PyObject *mp_subscript(PyObject *self, PyObject *index) {
    PyObject *root, *value, *data, *key;
    int owned;
    if (enabled && Py_TYPE(self) == Arr && (data = host_data(self, &root, &value)) != NULL &&
        (key = host_index(index, &owned)) != NULL) {
        PyObject *got = PyObject_GetItem(data, key);
        if (owned) Py_DECREF(key);
        if (got == NULL || Py_TYPE(got) != NpArr) return got;  /* an element, an error */
        if (NP(got)->base == value) {  /* the common view, of the root's own memory */
            PyObject *view = new_view(root, got);
            Py_DECREF(got);
            return view;
        }
        char kind = NP_KIND(data);
        Py_ssize_t limit = kind == 'O' || kind == 'V' ? -1 : host_limit();
        if (limit == -2) {
            Py_DECREF(got);
            return NULL;
        }
        if (limit >= 0)  /* a new array (fancy indexing): ``place_result``'s common case */
            return placed(got, limit, 1, &self);
        PyObject *r = call2(place_got, self, got);  /* (object arrays hold arrays) */
        Py_DECREF(got);
        return r;
    }
    return call2(fb_getitem, self, index);
}

static PyObject *sq_item(PyObject *self, Py_ssize_t i) {
    PyObject *index = PyLong_FromSsize_t(i);
    if (index == NULL) return NULL;
    PyObject *r = mp_subscript(self, index);
    Py_DECREF(index);
    return r;
}

static int mp_ass_subscript(PyObject *self, PyObject *index, PyObject *value) {
    PyObject *r;
    if (value == NULL) {
        r = call2(fb_delitem, self, index);
    }
    else {
        PyObject *data, *key;
        int owned;
        if (enabled && Py_TYPE(self) == Arr && (data = host_data(self, NULL, NULL)) != NULL &&
            (key = host_index(index, &owned)) != NULL) {
            /* what NumPy writes without a cast that could warn: a Python float or int into
               float64 or int64, NumPy's scalar or a host array of the array's own dtype */
            PyObject *dtype = NP(data)->descr, *new = NULL;
            if (PLAIN_NUMBER(value)) {
                if (dtype == f8 || dtype == i8) new = value;
            }
            else if (Py_TYPE(value) == Arr) {
                PyObject *given = host_data(value, NULL, NULL);
                if (given != NULL && NP(given)->descr == dtype) new = given;
            }
            else if (quiet_dtype(Py_TYPE(value)) == dtype)
                new = value;
            int r = PyErr_Occurred() ? -1 : new != NULL ? PyObject_SetItem(data, key, new) : 1;
            if (owned) Py_DECREF(key);
            if (r <= 0) return r;
        }
        r = PyObject_Vectorcall(fb_setitem, (PyObject *[]){self, index, value}, 3, NULL);
    }
    if (r == NULL) return -1;
    Py_DECREF(r);
    return 0;
}

static int sq_ass_item(PyObject *self, Py_ssize_t i, PyObject *value) {
    PyObject *index = PyLong_FromSsize_t(i);
    if (index == NULL) return -1;
    int r = mp_ass_subscript(self, index, value);
    Py_DECREF(index);
    return r;
}

/* --- function and method calls --------------------------------------------------------- */

/* ``FunctionBase``: the base of ``_fast_calls.HostFunction``, which stands in the public
   namespace for an npjax function that the host route runs (``_route.host_first``,
   ``_dispatch.npfunc``) and in ``ndarray`` for a method it runs (``host_method``). Its call
   runs the common case (host arrays, numbers and plain arguments, keywords the function
   names, called from the user's code) by calling NumPy's function, or NumPy's method of the
   array's data, from here: no Python frame between the user's line and NumPy, so NumPy's
   values, errors and warnings are its own. Anything else calls the Python function, which
   stays the one definition of the call. */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *np_fn;      /* NumPy's function (NULL for a method) */
    PyObject *py_fn;      /* the Python function */
    PyObject *method;     /* a method's name, or NULL */
    PyObject *np_method;  /* NumPy's ``ndarray.<method>`` (a method descriptor), or NULL */
    PyObject *keywords;   /* the keyword names the common case takes (a frozenset) */
    PyObject *cell;       /* its host-call count cell */
    Py_ssize_t max_args;  /* the most positional arguments the common case takes */
    Py_ssize_t pending;   /* host calls not yet in the cell */
    int binds;            /* binds as a method, as a Python function does */
    int owns;             /* its new array is a new host owner, whatever its size and dtype */
} FunctionObject;

static PyTypeObject FunctionBaseType;
static PyObject *functions_seen = NULL;  /* (for ``flush_counts``) */
static PyObject *place_result = NULL;    /* ``_route.place_result`` */
static PyTypeObject *np_dtype = NULL;    /* numpy.dtype */

#define MAX_CALL_ARGS 16

/* Whether NumPy gets ``o`` as it is on the host route (``_route.operand``): numbers,
   None, strings, types and dtypes. */
static int plain_argument(PyObject *o) {
    PyTypeObject *t = Py_TYPE(o);
    if (o == Py_None || t == &PyLong_Type || t == &PyFloat_Type || t == &PyBool_Type ||
        t == &PyComplex_Type || t == &PyUnicode_Type || PyType_Check(o))
        return 1;
    if (np_dtype != NULL && PyObject_TypeCheck(o, np_dtype)) return 1;
    return number_operand(o);
}

/* An argument as NumPy gets it in the common case (borrowed): a host array's data, a plain
   argument; for a tuple or list that holds host arrays, a new one holding their data
   (``*owned`` set). NULL (no error) when the Python function must run. */
static PyObject *call_argument(PyObject *o, int *owned) {
    *owned = 0;
    PyTypeObject *t = Py_TYPE(o);
    if (t == Arr) return host_data(o, NULL, NULL);
    if (t == &PyTuple_Type || t == &PyList_Type) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(o), arrays = 0;
        PyObject **items = PySequence_Fast_ITEMS(o);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *item = items[i];
            if (Py_TYPE(item) == Arr) {
                if (host_data(item, NULL, NULL) == NULL) return NULL;
                arrays++;
            }
            else if (!(PLAIN_NUMBER(item) || item == Py_None || PyBool_Check(item) ||
                       number_operand(item)))
                return NULL;
        }
        if (arrays == 0) return o;
        PyObject *new = t == &PyTuple_Type ? PyTuple_New(n) : PyList_New(n);
        if (new == NULL) return NULL;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *item = items[i];
            if (Py_TYPE(item) == Arr) item = host_data(item, NULL, NULL);
            PySequence_Fast_ITEMS(new)[i] = Py_NewRef(item);
        }
        *owned = 1;
        return new;
    }
    return plain_argument(o) ? o : NULL;
}

/* The npjax arrays among the arguments (one level into tuples and lists), as
   ``_route.npjax_operands`` lists them. */
static PyObject *call_inputs(PyObject *const *args, Py_ssize_t n) {
    PyObject *found = PyList_New(0);
    if (found == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = args[i];
        if (Py_TYPE(a) == Arr) {
            if (PyList_Append(found, a) < 0) goto error;
        }
        else if (PyTuple_CheckExact(a) || PyList_CheckExact(a)) {
            Py_ssize_t m = PySequence_Fast_GET_SIZE(a);
            for (Py_ssize_t j = 0; j < m; j++) {
                PyObject *item = PySequence_Fast_ITEMS(a)[j];
                if (Py_TYPE(item) == Arr && PyList_Append(found, item) < 0) goto error;
            }
        }
    }
    PyObject *r = PyList_AsTuple(found);
    Py_DECREF(found);
    return r;
error:
    Py_DECREF(found);
    return NULL;
}

/* NumPy's result of a call (the reference taken) placed as ``try_host`` places it: a new
   array of a device dtype within the limit is a new host owner, an array NumPy was given or
   one that views one, a tuple or a list go to ``place_result``; anything else (NumPy's
   scalars, Python objects) is the result as it is. */
static PyObject *call_placed(PyObject *result, Py_ssize_t limit, PyObject *const *args,
                             PyObject *const *ops, Py_ssize_t n) {
    if (Py_TYPE(result) == NpArr) {
        int given = 0;
        for (Py_ssize_t i = 0; i < n; i++)
            if (ops[i] == result) given = 1;
        if (!given && NP(result)->base == NULL && np_size(result) <= limit) {
            PyObject *dtype = NP(result)->descr;
            int device = dtype == f8 || dtype == b1;
            if (!device) {
                PyObject *known = PyDict_GetItemWithError(device_dtypes, dtype);
                if (known == NULL && PyErr_Occurred()) {
                    Py_DECREF(result);
                    return NULL;
                }
                device = known == Py_True;
            }
            if (device) {
                PyObject *new = new_owner(result);
                Py_DECREF(result);
                return new;
            }
        }
    }
    else if (!PyTuple_Check(result) && !PyList_CheckExact(result)) return result;
    PyObject *inputs = call_inputs(args, n), *lim = PyLong_FromSsize_t(limit), *r = NULL;
    if (inputs && lim)
        r = PyObject_Vectorcall(place_result, (PyObject *[]){result, inputs, lim}, 3, NULL);
    Py_XDECREF(inputs);
    Py_XDECREF(lim);
    Py_DECREF(result);
    return r;
}

static PyObject *function_fast(FunctionObject *f, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames, int *done) {
    *done = 0;
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames), all = nargs + nkw;
    if (nargs > f->max_args || all > MAX_CALL_ARGS) return NULL;
    if (f->method != NULL && (nargs < 1 || Py_TYPE(args[0]) != Arr)) return NULL;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        int known = PySet_Contains(f->keywords, PyTuple_GET_ITEM(kwnames, i));
        if (known <= 0) {
            if (known < 0) PyErr_Clear();
            return NULL;
        }
    }
    PyObject *ops[MAX_CALL_ARGS];
    int owned[MAX_CALL_ARGS];
    Py_ssize_t made = 0;
    PyObject *result = NULL;
    for (; made < all; made++)
        if ((ops[made] = call_argument(args[made], &owned[made])) == NULL) break;
    if (made < all) {
        if (PyErr_Occurred()) *done = 1;
        goto release;
    }
    Py_ssize_t limit = host_limit();
    if (limit == -2) {
        *done = 1;
        goto release;
    }
    if (limit < 0 || !user_frame()) goto release;
    *done = 1;
    f->pending++;  /* (counted before the call, as ``try_host`` counts it) */
    /* (``ops[0]`` is a NumPy array of the exact type: its method is ``np_method``) */
    result = f->np_method != NULL ? PyObject_Vectorcall(f->np_method, ops, nargs, kwnames)
             : f->method != NULL  ? PyObject_VectorcallMethod(f->method, ops, nargs, kwnames)
                                  : PyObject_Vectorcall(f->np_fn, ops, nargs, kwnames);
    if (result != NULL && f->owns && nargs > 0 && result == ops[0]) {
        Py_DECREF(result);  /* (``a.astype(a.dtype, copy=False)``: the array itself) */
        result = Py_NewRef(args[0]);
    }
    else if (result != NULL && f->owns && Py_TYPE(result) == NpArr) {
        PyObject *new = new_owner(result);  /* (``host_owner``: ``ndarray.copy``) */
        Py_DECREF(result);
        result = new;
    }
    else if (result != NULL) result = call_placed(result, limit, args, ops, all);
release:
    for (Py_ssize_t i = 0; i < made; i++)
        if (owned[i]) Py_DECREF(ops[i]);
    return result;
}

static PyObject *function_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                     PyObject *kwnames) {
    FunctionObject *f = (FunctionObject *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (enabled && f->py_fn != NULL) {
        int done;
        PyObject *r = function_fast(f, args, n, kwnames, &done);
        if (r != NULL || done) return r;
    }
    if (f->py_fn == NULL) {
        PyErr_SetString(PyExc_TypeError, "npjax: the Python function is not installed");
        return NULL;
    }
    return PyObject_Vectorcall(f->py_fn, args, nargsf, kwnames);
}

static PyObject *function_get(PyObject *self, PyObject *obj, PyObject *type) {
    if (obj == NULL || obj == Py_None || !((FunctionObject *)self)->binds)
        return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

static int function_traverse(PyObject *self, visitproc visit, void *arg) {
    FunctionObject *f = (FunctionObject *)self;
    Py_VISIT(f->np_fn);
    Py_VISIT(f->py_fn);
    Py_VISIT(f->method);
    Py_VISIT(f->np_method);
    Py_VISIT(f->keywords);
    Py_VISIT(f->cell);
    return 0;
}

static int function_clear(PyObject *self) {
    FunctionObject *f = (FunctionObject *)self;
    Py_CLEAR(f->np_fn);
    Py_CLEAR(f->py_fn);
    Py_CLEAR(f->method);
    Py_CLEAR(f->np_method);
    Py_CLEAR(f->keywords);
    Py_CLEAR(f->cell);
    return 0;
}

static void function_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    function_clear(self);
    tp->tp_free(self);
}

/* (NumPy's function or None, the Python function, a method's name or None, keyword names,
   count cell, most positional arguments, binds, owns): the call's facts. */
static PyObject *function_set(PyObject *self, PyObject *args) {
    PyObject *np_fn, *py_fn, *method, *keywords, *cell;
    Py_ssize_t max_args;
    int binds, owns;
    if (!PyArg_ParseTuple(args, "OOOO!O!npp", &np_fn, &py_fn, &method, &PyFrozenSet_Type,
                          &keywords, &PyList_Type, &cell, &max_args, &binds, &owns))
        return NULL;
    if (PyList_GET_SIZE(cell) != 1 || (method != Py_None && !PyUnicode_Check(method)) ||
        (np_fn == Py_None) == (method == Py_None)) {
        PyErr_SetString(PyExc_TypeError, "_hostpath_set: bad arguments");
        return NULL;
    }
    FunctionObject *f = (FunctionObject *)self;
    Py_XSETREF(f->np_fn, np_fn == Py_None ? NULL : Py_NewRef(np_fn));
    Py_XSETREF(f->py_fn, Py_NewRef(py_fn));
    Py_XSETREF(f->method, method == Py_None ? NULL : Py_NewRef(method));
    PyObject *descr = NULL;  /* NumPy's method descriptor, looked up once */
    if (method != Py_None && NpArr != NULL) {
        descr = PyObject_GetAttr((PyObject *)NpArr, method);
        if (descr == NULL) PyErr_Clear();
        else if (!PyObject_TypeCheck(descr, &PyMethodDescr_Type)) Py_CLEAR(descr);
    }
    Py_XSETREF(f->np_method, descr);
    Py_XSETREF(f->keywords, Py_NewRef(keywords));
    Py_XSETREF(f->cell, Py_NewRef(cell));
    f->max_args = max_args;
    f->binds = binds;
    f->owns = owns;
    f->vectorcall = function_vectorcall;
    if (functions_seen == NULL && (functions_seen = PyList_New(0)) == NULL) return NULL;
    if (PyList_Append(functions_seen, self) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef function_methods[] = {
    {"_hostpath_set", function_set, METH_VARARGS, "The C call's facts."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject FunctionBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "npjax._core._hostpath.FunctionBase",
    .tp_doc = "The base of npjax's host functions: a call's common case in C.",
    .tp_basicsize = sizeof(FunctionObject),
    .tp_vectorcall_offset = offsetof(FunctionObject, vectorcall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC |
                Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_dealloc = function_dealloc,
    .tp_traverse = function_traverse,
    .tp_clear = function_clear,
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = function_get,
    .tp_methods = function_methods,
};

/* Let instances of ``cls`` (a Python subclass of FunctionBase) be called by the vectorcall
   protocol: heap types do not inherit it. ``binds``: its instances all bind as methods, so
   ``a.name(...)`` may call one with ``a`` first, no bound method made (as for a Python
   function: ``Py_TPFLAGS_METHOD_DESCRIPTOR``), and the class is made immutable: the
   interpreter specializes ``a.name(...)`` (``LOAD_METHOD_NO_DICT``, as for a Python
   function) only for a method whose class cannot change; otherwise each call looks the
   name up in the type again. */
static PyObject *use_function_vectorcall(PyObject *mod, PyObject *args) {
    PyObject *cls;
    int binds;
    if (!PyArg_ParseTuple(args, "Op", &cls, &binds)) return NULL;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &FunctionBaseType)) {
        PyErr_SetString(PyExc_TypeError, "a subclass of FunctionBase");
        return NULL;
    }
    PyTypeObject *tp = (PyTypeObject *)cls;
    if (tp->tp_call != PyVectorcall_Call) Py_RETURN_FALSE;
    tp->tp_vectorcall_offset = offsetof(FunctionObject, vectorcall);
    tp->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
    if (binds) tp->tp_flags |= Py_TPFLAGS_METHOD_DESCRIPTOR;
#ifdef Py_TPFLAGS_IMMUTABLETYPE
    if (binds) tp->tp_flags |= Py_TPFLAGS_IMMUTABLETYPE;
#endif
    PyType_Modified(tp);
    Py_RETURN_TRUE;
}

static PyObject *configure_calls(PyObject *mod, PyObject *args) {
    PyObject *place, *dtype;
    if (!PyArg_ParseTuple(args, "OO!", &place, &PyType_Type, &dtype)) return NULL;
    Py_XSETREF(place_result, Py_NewRef(place));
    Py_XSETREF(np_dtype, (PyTypeObject *)Py_NewRef(dtype));
    Py_RETURN_NONE;
}

/* --- ``a.T`` -------------------------------------------------------------------------- */

static PyObject *fb_T = NULL;  /* the Python property's getter */
static PyObject *T_name = NULL;

/* ``a.T`` of a host array: NumPy's transposed view of its data, a view of its root (as the
   Python property makes it); the Python property for everything else. */
static PyObject *get_T(PyObject *self, void *closure) {
    PyObject *root, *value, *data;
    if (enabled && Py_TYPE(self) == Arr && (data = host_data(self, &root, &value)) != NULL) {
        PyObject *view = PyObject_GetAttr(data, T_name);
        if (view == NULL) return NULL;
        if (Py_TYPE(view) == NpArr && NP(view)->base == value) {
            PyObject *r = new_view(root, view);
            Py_DECREF(view);
            return r;
        }
        Py_DECREF(view);
    }
    if (fb_T == NULL) {
        PyErr_SetString(PyExc_AttributeError, "T");
        return NULL;
    }
    return PyObject_CallOneArg(fb_T, self);
}

static PyObject *set_transpose(PyObject *mod, PyObject *fget) {
    Py_XSETREF(fb_T, Py_NewRef(fget));
    Py_RETURN_NONE;
}

/* ``iter(a)`` of a host vector: NumPy's iterator of its data (NumPy's scalars, as the
   Python member gives); the Python member for everything else. */
static PyObject *fb_iter = NULL;

static PyObject *tp_iter(PyObject *self) {
    PyObject *data;
    if (enabled && Py_TYPE(self) == Arr && (data = host_data(self, NULL, NULL)) != NULL &&
        NP(data)->nd == 1)
        return PyObject_GetIter(data);
    if (fb_iter == NULL) {
        PyErr_SetString(PyExc_TypeError, "npjax: the Python member is not installed");
        return NULL;
    }
    return PyObject_CallOneArg(fb_iter, self);
}

static PyObject *set_iter(PyObject *mod, PyObject *fn) {
    Py_XSETREF(fb_iter, Py_NewRef(fn));
    Py_RETURN_NONE;
}

static PyGetSetDef array_getset[] = {
    {"T", get_T, NULL, "The transposed array (NumPy's view for a host array).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* --- ufunc calls ---------------------------------------------------------------------- */

/* ``UfuncBase``: the base of ``npjax.ufunc``; its call runs ``npjax.add(a, b)``'s common case
   (two operands, host arrays or numbers, no keywords) and the Python ``__call__`` for
   everything else. */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;  /* ``ufunc_vectorcall`` once given its facts */
    PyObject *np_ufunc;  /* NumPy's ufunc */
    PyObject *cell;      /* its host-call count cell */
    int binary;          /* elementwise, two inputs, one output */
    int unary;           /* elementwise, one input, one output */
    Py_ssize_t pending;  /* host calls not yet in the cell */
} UfuncObject;

static PyObject *ufuncs_seen = NULL;  /* every ufunc given its facts (for ``flush_counts``) */

static PyObject *fb_ufunc_call = NULL;  /* ``ufunc.__call__`` */
static PyObject *ufunc_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                  PyObject *kwnames);

static void ufunc_dealloc(PyObject *self) {
    UfuncObject *u = (UfuncObject *)self;
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    Py_CLEAR(u->np_ufunc);
    Py_CLEAR(u->cell);
    tp->tp_free(self);
}

static int ufunc_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(((UfuncObject *)self)->np_ufunc);
    Py_VISIT(((UfuncObject *)self)->cell);
    return 0;
}

static int ufunc_clear(PyObject *self) {
    Py_CLEAR(((UfuncObject *)self)->np_ufunc);
    Py_CLEAR(((UfuncObject *)self)->cell);
    return 0;
}

static PyObject *ufunc_set_fast(PyObject *self, PyObject *args) {
    PyObject *np_ufunc, *cell;
    int binary, unary;
    if (!PyArg_ParseTuple(args, "OO!pp", &np_ufunc, &PyList_Type, &cell, &binary, &unary))
        return NULL;
    if (PyList_GET_SIZE(cell) != 1) {
        PyErr_SetString(PyExc_TypeError, "a count cell is a [n] list");
        return NULL;
    }
    UfuncObject *u = (UfuncObject *)self;
    Py_XSETREF(u->np_ufunc, Py_NewRef(np_ufunc));
    Py_XSETREF(u->cell, Py_NewRef(cell));
    u->binary = binary;
    u->unary = unary;
    u->vectorcall = ufunc_vectorcall;
    if (ufuncs_seen == NULL && (ufuncs_seen = PyList_New(0)) == NULL) return NULL;
    if (PyList_Append(ufuncs_seen, self) < 0) return NULL;
    Py_RETURN_NONE;
}

/* An operand of the ufunc's common case: a host array's data, or a Python number. */
static PyObject *ufunc_operand(PyObject *a) {
    if (Py_TYPE(a) == Arr) return host_data(a, NULL, NULL);
    return number_operand(a) ? a : NULL;
}

static PyObject *ufunc_fast(UfuncObject *u, PyObject *a, PyObject *b, int *done) {
    *done = 0;
    PyObject *x = ufunc_operand(a), *y = x ? ufunc_operand(b) : NULL;
    if (y == NULL) return NULL;
    Py_ssize_t size = 1;  /* (two numbers: NumPy's scalar) */
    if (Py_TYPE(x) == NpArr && Py_TYPE(y) == NpArr)
        size = same_shape(x, y) ? np_size(x) : np_size(x) * np_size(y);
    else if (Py_TYPE(x) == NpArr) size = np_size(x);
    else if (Py_TYPE(y) == NpArr) size = np_size(y);
    Py_ssize_t limit = host_limit();
    if (limit == -2) { *done = 1; return NULL; }
    if (limit < 0 || size > limit || !user_frame()) return NULL;
    *done = 1;
    PyObject *result = call2(u->np_ufunc, x, y);  /* NumPy's own ufunc */
    if (result == NULL) return NULL;
    u->pending++;  /* (a call that raised is not counted) */
    return placed(result, limit, 2, (PyObject *[]){a, b});
}

/* ``npjax.sqrt(a)``'s common case: a host array's data or a number, NumPy's own ufunc
   (``_host_paths.host_ufunc1``). */
static PyObject *ufunc_fast1(UfuncObject *u, PyObject *a, int *done) {
    *done = 0;
    PyObject *x = ufunc_operand(a);
    if (x == NULL) return NULL;
    Py_ssize_t limit = host_limit();
    if (limit == -2) { *done = 1; return NULL; }
    if (limit < 0 || !user_frame()) return NULL;
    *done = 1;
    PyObject *result = PyObject_CallOneArg(u->np_ufunc, x);
    if (result == NULL) return NULL;
    u->pending++;
    return placed(result, limit, 1, &a);
}

/* ``npjax.minimum(a, b, out=c)``, ``npjax.sqrt(a, out=c)`` (``b`` NULL): the only keyword
   ``out``, a host array: the out writer's host branch (``_core/_out.out_buffer``) in C. NumPy's
   ufunc writes into its data and the array itself is the result. */
static PyObject *out_key = NULL, *out_kwnames = NULL;  /* "out", ("out",) */

static PyObject *ufunc_fast_out(UfuncObject *u, PyObject *a, PyObject *b, PyObject *out,
                                int *done) {
    *done = 0;
    if (Py_TYPE(out) != Arr) return NULL;
    PyObject *x = ufunc_operand(a), *y = b == NULL ? x : x ? ufunc_operand(b) : NULL;
    PyObject *o = y ? host_data(out, NULL, NULL) : NULL;
    if (o == NULL) return NULL;
    Py_ssize_t limit = host_limit();
    if (limit == -2) { *done = 1; return NULL; }
    if (limit < 0 || !user_frame()) return NULL;
    *done = 1;
    u->pending++;  /* (counted before the call, as the Python call counts it) */
    PyObject *stack[3] = {x, y, o};
    if (b == NULL) stack[1] = o;
    PyObject *result = PyObject_Vectorcall(u->np_ufunc, stack, b == NULL ? 1 : 2, out_kwnames);
    if (result == NULL) return NULL;
    if (result == o) {
        Py_DECREF(result);
        return Py_NewRef(out);
    }
    if (b == NULL) return placed(result, limit, 2, (PyObject *[]){a, out});
    return placed(result, limit, 3, (PyObject *[]){a, b, out});
}

static PyObject *ufunc_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    UfuncObject *u = (UfuncObject *)self;
    if (enabled && u->binary && u->np_ufunc != NULL && PyTuple_GET_SIZE(args) == 2 &&
        (kwargs == NULL || PyDict_GET_SIZE(kwargs) == 0)) {
        int done;
        PyObject *r = ufunc_fast(u, PyTuple_GET_ITEM(args, 0), PyTuple_GET_ITEM(args, 1),
                                 &done);
        if (r != NULL || done) return r;
    }
    else if (enabled && u->binary && u->np_ufunc != NULL && PyTuple_GET_SIZE(args) == 2 &&
             kwargs != NULL && PyDict_GET_SIZE(kwargs) == 1) {
        PyObject *out = PyDict_GetItemWithError(kwargs, out_key);
        if (out == NULL && PyErr_Occurred()) return NULL;
        if (out != NULL) {
            int done;
            PyObject *r = ufunc_fast_out(u, PyTuple_GET_ITEM(args, 0),
                                         PyTuple_GET_ITEM(args, 1), out, &done);
            if (r != NULL || done) return r;
        }
    }
    else if (enabled && u->unary && u->np_ufunc != NULL && PyTuple_GET_SIZE(args) == 1 &&
             (kwargs == NULL || PyDict_GET_SIZE(kwargs) == 0)) {
        int done;
        PyObject *r = ufunc_fast1(u, PyTuple_GET_ITEM(args, 0), &done);
        if (r != NULL || done) return r;
    }
    else if (enabled && u->unary && u->np_ufunc != NULL && PyTuple_GET_SIZE(args) == 1 &&
             kwargs != NULL && PyDict_GET_SIZE(kwargs) == 1) {
        PyObject *out = PyDict_GetItemWithError(kwargs, out_key);
        if (out == NULL && PyErr_Occurred()) return NULL;
        if (out != NULL) {
            int done;
            PyObject *r = ufunc_fast_out(u, PyTuple_GET_ITEM(args, 0), NULL, out, &done);
            if (r != NULL || done) return r;
        }
    }
    if (fb_ufunc_call == NULL) {
        PyErr_SetString(PyExc_TypeError, "npjax.ufunc: no call installed");
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    PyObject *all = PyTuple_New(n + 1);
    if (all == NULL) return NULL;
    PyTuple_SET_ITEM(all, 0, Py_NewRef(self));
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(all, i + 1, Py_NewRef(PyTuple_GET_ITEM(args, i)));
    PyObject *r = PyObject_Call(fb_ufunc_call, all, kwargs);
    Py_DECREF(all);
    return r;
}

static PyObject *fb_array_ufunc = NULL;  /* ndarray's Python ``__array_ufunc__`` */
static PyObject *ours_map = NULL;        /* NumPy's ufunc -> npjax's */

/* ``ndarray.__array_ufunc__``: NumPy's scalar operators with a host array (``s * a``) in
   the C call's common case, the Python member for everything else. */
static PyObject *array_ufunc(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    if (enabled && nargs == 4 && kwnames == NULL && ours_map != NULL &&
        PyUnicode_Check(args[1]) && PyUnicode_CompareWithASCIIString(args[1], "__call__") == 0) {
        PyObject *ours = PyDict_GetItemWithError(ours_map, args[0]);  /* borrowed */
        if (ours == NULL && PyErr_Occurred()) return NULL;
        if (ours != NULL && PyObject_TypeCheck(ours, &UfuncBaseType)) {
            UfuncObject *u = (UfuncObject *)ours;
            if (u->binary && u->np_ufunc == args[0]) {
                int done;
                PyObject *r = ufunc_fast(u, args[2], args[3], &done);
                if (r != NULL || done) return r;
            }
        }
    }
    return call_member(fb_array_ufunc, self, args, nargs, kwnames);
}

static PyObject *set_array_ufunc(PyObject *mod, PyObject *args) {
    PyObject *fn, *map;
    if (!PyArg_ParseTuple(args, "OO!", &fn, &PyDict_Type, &map)) return NULL;
    Py_XSETREF(fb_array_ufunc, Py_NewRef(fn));
    Py_XSETREF(ours_map, Py_NewRef(map));
    Py_RETURN_NONE;
}

/* NumPy's scalar operators with a host array on the right (``mu * a``, ``s - a``): NumPy's
   scalar gives up on an operand it does not know and runs its array operator, whose ufunc
   finds ``a``'s ``__array_ufunc__`` and calls it (``array_ufunc`` above: npjax's ufunc's
   common case) after building its arguments (~0.6 us a call). The scalar types' slots are
   wrapped here to make that same call (``ufunc_fast`` with the ufunc NumPy's array operator
   would call, the operands as it passes them) when the right operand is exactly a host
   npjax.ndarray, and to run NumPy's own slot for everything else (and where the common case
   does not apply). */
#define NSCALAR 8
#define NSCALAR_OPS 4  /* + - * / */
static binaryfunc scalar_orig[NSCALAR][NSCALAR_OPS];
static UfuncObject *scalar_ufunc[NSCALAR_OPS];
static PyTypeObject *scalar_types[NSCALAR];
static int n_scalar_types = 0;

static PyObject *scalar_binary(int t, int op, PyObject *a, PyObject *b) {
    if (enabled && Py_TYPE(b) == Arr && scalar_ufunc[op] != NULL) {
        int done;
        PyObject *r = ufunc_fast(scalar_ufunc[op], a, b, &done);
        if (r != NULL || done) return r;
        if (PyErr_Occurred()) return NULL;
    }
    return scalar_orig[t][op](a, b);
}

#define SCALAR_OP(T, OP) \
    static PyObject *scalar_##T##_##OP(PyObject *a, PyObject *b) { \
        return scalar_binary(T, OP, a, b); \
    }
#define SCALAR_TYPE(T) SCALAR_OP(T, 0) SCALAR_OP(T, 1) SCALAR_OP(T, 2) SCALAR_OP(T, 3)
SCALAR_TYPE(0) SCALAR_TYPE(1) SCALAR_TYPE(2) SCALAR_TYPE(3)
SCALAR_TYPE(4) SCALAR_TYPE(5) SCALAR_TYPE(6) SCALAR_TYPE(7)
#define SCALAR_ROW(T) {scalar_##T##_0, scalar_##T##_1, scalar_##T##_2, scalar_##T##_3}
static binaryfunc scalar_wrappers[NSCALAR][NSCALAR_OPS] = {
    SCALAR_ROW(0), SCALAR_ROW(1), SCALAR_ROW(2), SCALAR_ROW(3),
    SCALAR_ROW(4), SCALAR_ROW(5), SCALAR_ROW(6), SCALAR_ROW(7)};

static binaryfunc *scalar_slot(PyTypeObject *tp, int op) {
    PyNumberMethods *nm = tp->tp_as_number;
    switch (op) {
        case 0: return &nm->nb_add;
        case 1: return &nm->nb_subtract;
        case 2: return &nm->nb_multiply;
        default: return &nm->nb_true_divide;
    }
}

static int is_scalar_wrapper(binaryfunc f) {
    for (int t = 0; t < NSCALAR; t++)
        for (int op = 0; op < NSCALAR_OPS; op++)
            if (scalar_wrappers[t][op] == f) return 1;
    return 0;
}

/* ``scalar_operators((numpy.float64, ...), (add, subtract, multiply, true_divide))``: wrap
   those NumPy scalar types' ``+ - * /`` slots (npjax's ufuncs of those operators, each with
   its NumPy ufunc); True where they are wrapped now. */
static PyObject *scalar_operators(PyObject *mod, PyObject *args) {
    PyObject *types, *ufuncs;
    if (!PyArg_ParseTuple(args, "O!O!", &PyTuple_Type, &types, &PyTuple_Type, &ufuncs))
        return NULL;
    if (PyTuple_GET_SIZE(ufuncs) != NSCALAR_OPS) {
        PyErr_SetString(PyExc_TypeError, "scalar_operators: four ufuncs (+ - * /)");
        return NULL;
    }
    for (int op = 0; op < NSCALAR_OPS; op++) {
        PyObject *u = PyTuple_GET_ITEM(ufuncs, op);
        if (!PyObject_TypeCheck(u, &UfuncBaseType) || !((UfuncObject *)u)->binary ||
            ((UfuncObject *)u)->np_ufunc == NULL) {
            PyErr_SetString(PyExc_TypeError, "scalar_operators: npjax's binary ufuncs");
            return NULL;
        }
    }
    for (int op = 0; op < NSCALAR_OPS; op++) {
        Py_XINCREF(PyTuple_GET_ITEM(ufuncs, op));  /* (kept for the process) */
        scalar_ufunc[op] = (UfuncObject *)PyTuple_GET_ITEM(ufuncs, op);
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(types); i++) {
        PyObject *cls = PyTuple_GET_ITEM(types, i);
        if (!PyType_Check(cls) || PyType_HasFeature((PyTypeObject *)cls, Py_TPFLAGS_HEAPTYPE) ||
            ((PyTypeObject *)cls)->tp_as_number == NULL) {
            PyErr_SetString(PyExc_TypeError, "scalar_operators: NumPy's scalar types");
            return NULL;
        }
        PyTypeObject *tp = (PyTypeObject *)cls;
        int seen = 0;
        for (int t = 0; t < n_scalar_types; t++) seen |= scalar_types[t] == tp;
        if (seen) continue;
        if (n_scalar_types == NSCALAR) {
            PyErr_SetString(PyExc_ValueError, "scalar_operators: at most 8 types");
            return NULL;
        }
        int t = n_scalar_types;
        int ok = 1;
        for (int op = 0; op < NSCALAR_OPS; op++) {
            binaryfunc f = *scalar_slot(tp, op);
            ok &= f != NULL && !is_scalar_wrapper(f);  /* (a shared table: already wrapped) */
        }
        if (!ok) continue;
        for (int op = 0; op < NSCALAR_OPS; op++) {
            scalar_orig[t][op] = *scalar_slot(tp, op);
            *scalar_slot(tp, op) = scalar_wrappers[t][op];
        }
        scalar_types[t] = tp;
        n_scalar_types++;
    }
    Py_RETURN_TRUE;
}

/* The call by the vectorcall protocol (no argument tuple): the same cases as
   ``ufunc_call``, the Python ``__call__`` for the rest. */
static PyObject *ufunc_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                  PyObject *kwnames) {
    UfuncObject *u = (UfuncObject *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    if (enabled && u->np_ufunc != NULL) {
        int done = 0;
        PyObject *r = NULL;
        if (nkw == 0 && n == 2 && u->binary) r = ufunc_fast(u, args[0], args[1], &done);
        else if (nkw == 0 && n == 1 && u->unary) r = ufunc_fast1(u, args[0], &done);
        else if (nkw == 1 && n == 2 && u->binary &&
                 PyUnicode_Compare(PyTuple_GET_ITEM(kwnames, 0), out_key) == 0)
            r = ufunc_fast_out(u, args[0], args[1], args[2], &done);
        else if (nkw == 1 && n == 1 && u->unary &&
                 PyUnicode_Compare(PyTuple_GET_ITEM(kwnames, 0), out_key) == 0)
            r = ufunc_fast_out(u, args[0], NULL, args[1], &done);
        if (PyErr_Occurred() && !done) return NULL;
        if (r != NULL || done) return r;
    }
    return call_member(fb_ufunc_call, self, args, n, kwnames);
}

/* Let instances of ``cls`` (npjax.ufunc, a Python subclass of UfuncBase whose ``__call__``
   is the base's) be called by the vectorcall protocol: heap types do not inherit it. */
static PyObject *use_vectorcall(PyObject *mod, PyObject *cls) {
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &UfuncBaseType)) {
        PyErr_SetString(PyExc_TypeError, "use_vectorcall: a subclass of UfuncBase");
        return NULL;
    }
    PyTypeObject *tp = (PyTypeObject *)cls;
    if (tp->tp_call != ufunc_call) Py_RETURN_FALSE;  /* a __call__ of its own */
    tp->tp_vectorcall_offset = offsetof(UfuncObject, vectorcall);
    tp->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
    Py_RETURN_TRUE;
}

static PyObject *flush_counts(PyObject *mod, PyObject *unused) {
    for (int op = 0; op < NOPS; op++)
        for (int side = 0; side < 3; side++)
            if (pending[op][side] && cnt[op][side] != NULL) {
                if (add_to_cell(cnt[op][side], pending[op][side]) < 0) return NULL;
                pending[op][side] = 0;
            }
    for (int op = 0; op < 6; op++)
        if (pending_cmp[op] && cnt_cmp[op] != NULL) {
            if (add_to_cell(cnt_cmp[op], pending_cmp[op]) < 0) return NULL;
            pending_cmp[op] = 0;
        }
    for (int op = 0; op < NUNARY; op++)
        if (pending_unary[op] && cnt_unary[op] != NULL) {
            if (add_to_cell(cnt_unary[op], pending_unary[op]) < 0) return NULL;
            pending_unary[op] = 0;
        }
    Py_ssize_t m = functions_seen == NULL ? 0 : PyList_GET_SIZE(functions_seen);
    for (Py_ssize_t i = 0; i < m; i++) {
        FunctionObject *f = (FunctionObject *)PyList_GET_ITEM(functions_seen, i);
        if (f->pending && f->cell != NULL) {
            if (add_to_cell(f->cell, f->pending) < 0) return NULL;
            f->pending = 0;
        }
    }
    Py_ssize_t n = ufuncs_seen == NULL ? 0 : PyList_GET_SIZE(ufuncs_seen);
    for (Py_ssize_t i = 0; i < n; i++) {
        UfuncObject *u = (UfuncObject *)PyList_GET_ITEM(ufuncs_seen, i);
        if (u->pending && u->cell != NULL) {
            if (add_to_cell(u->cell, u->pending) < 0) return NULL;
            u->pending = 0;
        }
    }
    Py_RETURN_NONE;
}

static PyObject *set_ufunc_call(PyObject *mod, PyObject *fn) {
    Py_XSETREF(fb_ufunc_call, Py_NewRef(fn));
    Py_RETURN_NONE;
}

static PyMethodDef ufunc_methods[] = {
    {"_hostpath_set", ufunc_set_fast, METH_VARARGS,
     "(NumPy's ufunc, count cell, binary): the C call's facts."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject UfuncBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "npjax._core._hostpath.UfuncBase",
    .tp_doc = "The base of npjax.ufunc: npjax.add(a, b)'s common case in C.",
    .tp_basicsize = sizeof(UfuncObject),
    .tp_vectorcall_offset = offsetof(UfuncObject, vectorcall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC |
                Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_dealloc = ufunc_dealloc,
    .tp_traverse = ufunc_traverse,
    .tp_clear = ufunc_clear,
    .tp_call = ufunc_call,
    .tp_methods = ufunc_methods,
};

/* --- configuration ------------------------------------------------------------------- */

static Py_ssize_t slot_offset(PyObject *cls, const char *name) {
    PyObject *d = PyObject_GetAttrString(cls, name);
    if (d == NULL) return -1;
    if (!PyObject_TypeCheck(d, &PyMemberDescr_Type)) {
        Py_DECREF(d);
        PyErr_Format(PyExc_TypeError, "%s is not a slot", name);
        return -1;
    }
    Py_ssize_t off = ((PyMemberDescrObject *)d)->d_member->offset;
    Py_DECREF(d);
    return off;
}

static PyObject *get_item(PyObject *dict, const char *key) {
    PyObject *v = PyDict_GetItemString(dict, key);
    if (v == NULL) PyErr_Format(PyExc_KeyError, "%s", key);
    return v;
}

/* checks(samples): each sample (array, ndim, size, base, dtype, writeable, dtype kind) as
   Python sees it; True when NumPy's fields read here agree. */
static PyObject *layout_agrees(PyObject *mod, PyObject *samples) {
    PyObject *it = PyObject_GetIter(samples), *s;
    if (it == NULL) return NULL;
    int ok = 1;
    while ((s = PyIter_Next(it)) != NULL) {
        PyObject *a;
        int nd;
        Py_ssize_t size;
        PyObject *base, *dtype;
        int writeable, kind;
        if (!PyArg_ParseTuple(s, "OinOOpC", &a, &nd, &size, &base, &dtype, &writeable,
                              &kind)) {
            Py_DECREF(s);
            Py_DECREF(it);
            return NULL;
        }
        if (NP(a)->nd != nd ||  /* (the caller's samples are numpy.ndarray) */
            np_size(a) != size || NP(a)->base != (base == Py_None ? NULL : base) ||
            NP(a)->descr != dtype || !(NP(a)->flags & NP_WRITEABLE) != !writeable ||
            (unsigned char)NP_KIND(a) != kind)
            ok = 0;
        Py_DECREF(s);
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) return NULL;
    return PyBool_FromLong(ok);
}

/* The elision facts of ``configure``'s dict: "elide_kinds" (per operator, the dtype kinds of
   its member and reflected member, or None), "elide_bytes", "binary_opcodes", and the
   references "temporary_refs" and "buffer_refs" a temporary and its buffer have in a slot. */
static int configure_elision(PyObject *kw) {
    PyObject *kinds = get_item(kw, "elide_kinds"), *nbytes = get_item(kw, "elide_bytes"),
             *codes = get_item(kw, "binary_opcodes"), *trefs = get_item(kw, "temporary_refs"),
             *brefs = get_item(kw, "buffer_refs");
    if (!kinds || !nbytes || !codes || !trefs || !brefs) return -1;
    if (!PyTuple_Check(kinds) || PyTuple_GET_SIZE(kinds) != NOPS) {
        PyErr_SetString(PyExc_TypeError, "configure: elide_kinds, one pair per operator");
        return -1;
    }
    char *found[NOPS][2];
    for (int op = 0; op < NOPS; op++) {
        PyObject *pair = PyTuple_GET_ITEM(kinds, op);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "configure: elide_kinds, one pair per operator");
            return -1;
        }
        for (int side = 0; side < 2; side++) {
            PyObject *k = PyTuple_GET_ITEM(pair, side);
            found[op][side] = NULL;
            if (k == Py_None) continue;
            Py_ssize_t n;
            const char *text = PyUnicode_Check(k) ? PyUnicode_AsUTF8AndSize(k, &n) : NULL;
            if (text == NULL || n >= 16) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_TypeError, "configure: elide_kinds, short strings");
                return -1;
            }
            memcpy(elide_kind_text[op][side], text, n + 1);
            found[op][side] = elide_kind_text[op][side];
        }
    }
    Py_ssize_t b = PyLong_AsSsize_t(nbytes), t = PyLong_AsSsize_t(trefs),
               r = PyLong_AsSsize_t(brefs);
    if (PyErr_Occurred()) return -1;
    char table[256] = {0};
    PyObject *it = PyObject_GetIter(codes), *c;
    if (it == NULL) return -1;
    while ((c = PyIter_Next(it)) != NULL) {
        long code = PyLong_AsLong(c);
        Py_DECREF(c);
        if (code < 0 || code > 255) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "configure: an opcode");
            break;
        }
        table[code] = 1;
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) return -1;
    if (itemsize_name == NULL && (itemsize_name = PyUnicode_InternFromString("itemsize")) == NULL)
        return -1;
    if (dtype_name == NULL && (dtype_name = PyUnicode_InternFromString("dtype")) == NULL)
        return -1;
    memcpy(binary_opcode, table, sizeof(table));
    memcpy(elide_kinds, found, sizeof(found));
    elide_bytes = b, temporary_refs = t, buffer_refs = r;
    return 0;
}

/* The elisions the slots did per operator (in the order of ``_fast.OPERATORS``). */
static PyObject *elided_counts(PyObject *mod, PyObject *unused) {
    PyObject *counts = PyTuple_New(NOPS);
    if (counts == NULL) return NULL;
    for (int op = 0; op < NOPS; op++) {
        PyObject *n = PyLong_FromSsize_t(elided[op]);
        if (n == NULL) {
            Py_DECREF(counts);
            return NULL;
        }
        PyTuple_SET_ITEM(counts, op, n);
    }
    return counts;
}

static PyObject *configure(PyObject *mod, PyObject *kw) {
    if (!PyDict_Check(kw)) {
        PyErr_SetString(PyExc_TypeError, "configure(dict)");
        return NULL;
    }
    PyObject *cls = get_item(kw, "ndarray");
    if (cls == NULL) return NULL;
    PyObject *objs[] = {
        get_item(kw, "numpy_ndarray"), get_item(kw, "context"), get_item(kw, "float64"),
        get_item(kw, "bool"), get_item(kw, "int64"), get_item(kw, "device_dtypes"),
        get_item(kw, "quiet_scalars"), get_item(kw, "fallbacks"), get_item(kw, "cells"),
        get_item(kw, "place_new"), get_item(kw, "place_got"), get_item(kw, "elide_items"),
        get_item(kw, "number_scalars"), get_item(kw, "grows_off_host"),
        get_item(kw, "operator_ufuncs")};
    for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++)
        if (objs[i] == NULL) return NULL;
    if (!PyType_Check(cls) || !PyType_Check(objs[0]) || !PyFrozenSet_Check(objs[12]) ||
        !PyDict_Check(objs[6]) ||
        !PyTuple_Check(objs[14]) || PyTuple_GET_SIZE(objs[14]) != NOPS) {
        PyErr_SetString(PyExc_TypeError, "configure: bad arguments");
        return NULL;
    }
    Py_ssize_t offs[10];
    const char *slots[10] = {"_value", "_layout", "_root_shape", "_base", "_cache",
                             "_lens", "_scalar", "_mine", "_readonly", "_version"};
    for (int i = 0; i < 10; i++)
        if ((offs[i] = slot_offset(cls, slots[i])) < 0) return NULL;
    PyObject *fbs = objs[7], *cs = objs[8];
    PyObject *fbn[NOPS][3], *cn[NOPS][3];
    for (int op = 0; op < NOPS; op++)
        for (int s = 0; s < 3; s++) {
            if ((fbn[op][s] = get_item(fbs, names[op][s])) == NULL) return NULL;
            if ((cn[op][s] = get_item(cs, names[op][s])) == NULL) return NULL;
            if (!PyList_CheckExact(cn[op][s]) || PyList_GET_SIZE(cn[op][s]) != 1) {
                PyErr_SetString(PyExc_TypeError, "configure: count cells are [n] lists");
                return NULL;
            }
        }
    PyObject *fcmp[6], *ccmp[6], *fun[NUNARY], *cun[NUNARY];
    for (int op = 0; op < 6; op++) {
        if ((fcmp[op] = get_item(fbs, cmp_names[op])) == NULL) return NULL;
        if ((ccmp[op] = get_item(cs, cmp_names[op])) == NULL) return NULL;
        if (!PyList_CheckExact(ccmp[op]) || PyList_GET_SIZE(ccmp[op]) != 1) {
            PyErr_SetString(PyExc_TypeError, "configure: count cells are [n] lists");
            return NULL;
        }
    }
    for (int op = 0; op < NUNARY; op++) {
        if ((fun[op] = get_item(fbs, unary_names[op])) == NULL) return NULL;
        if ((cun[op] = get_item(cs, unary_names[op])) == NULL) return NULL;
        if (!PyList_CheckExact(cun[op]) || PyList_GET_SIZE(cun[op]) != 1) {
            PyErr_SetString(PyExc_TypeError, "configure: count cells are [n] lists");
            return NULL;
        }
    }
    PyObject *g = get_item(fbs, "__getitem__"), *st = get_item(fbs, "__setitem__"),
             *dl = get_item(fbs, "__delitem__");
    if (!g || !st || !dl) return NULL;
    Py_ssize_t elide = PyLong_AsSsize_t(objs[11]);
    if (elide == -1 && PyErr_Occurred()) return NULL;
    if (configure_elision(kw) < 0) return NULL;

    Py_XSETREF(Arr, (PyTypeObject *)Py_NewRef(cls));
    Py_XSETREF(NpArr, (PyTypeObject *)Py_NewRef(objs[0]));
    Py_XSETREF(ctxvar, Py_NewRef(objs[1]));
    Py_XSETREF(f8, Py_NewRef(objs[2]));
    Py_XSETREF(b1, Py_NewRef(objs[3]));
    Py_XSETREF(i8, Py_NewRef(objs[4]));
    Py_XSETREF(device_dtypes, Py_NewRef(objs[5]));
    PyObject *quiet = PyDict_Copy(objs[6]);  /* (a copy of its own: see ``quiet_dtype``) */
    if (quiet == NULL) return NULL;
    Py_XSETREF(quiet_scalars, quiet);
    last_quiet_type = NULL;
    Py_XSETREF(place_new, Py_NewRef(objs[9]));
    Py_XSETREF(place_got, Py_NewRef(objs[10]));
    Py_XSETREF(number_scalars, Py_NewRef(objs[12]));
    last_number_type = NULL;
    Py_XSETREF(grows_off_host, Py_NewRef(objs[13]));
    for (int op = 0; op < NOPS; op++)
        Py_XSETREF(np_ops[op], Py_NewRef(PyTuple_GET_ITEM(objs[14], op)));
    for (int op = 0; op < NOPS; op++)
        for (int s = 0; s < 3; s++) {
            Py_XSETREF(fb[op][s], Py_NewRef(fbn[op][s]));
            Py_XSETREF(cnt[op][s], Py_NewRef(cn[op][s]));
        }
    for (int op = 0; op < 6; op++) {
        Py_XSETREF(fb_cmp[op], Py_NewRef(fcmp[op]));
        Py_XSETREF(cnt_cmp[op], Py_NewRef(ccmp[op]));
    }
    for (int op = 0; op < NUNARY; op++) {
        Py_XSETREF(fb_unary[op], Py_NewRef(fun[op]));
        Py_XSETREF(cnt_unary[op], Py_NewRef(cun[op]));
    }
    Py_XSETREF(fb_getitem, Py_NewRef(g));
    Py_XSETREF(fb_setitem, Py_NewRef(st));
    Py_XSETREF(fb_delitem, Py_NewRef(dl));
    off_value = offs[0], off_layout = offs[1], off_root_shape = offs[2], off_base = offs[3];
    off_cache = offs[4], off_lens = offs[5], off_scalar = offs[6], off_mine = offs[7];
    off_readonly = offs[8], off_version = offs[9];
    for (int i = 0; i < NSTATE; i++) state_offs[i] = offs[i];
    PyObject *kept[NSTATE] = {NULL, NULL, Py_None, NULL, Py_None, NULL, Py_False, Py_False,
                              Py_False, zero};  /* (in the order of ``slots``) */
    for (int i = 0; i < NSTATE; i++) fixed[i] = kept[i];
    off_weaklist = ((PyTypeObject *)cls)->tp_weaklistoffset;
    ((PyTypeObject *)cls)->tp_dealloc = arr_dealloc;
    elide_items = elide;
    enabled = 1;
    Py_RETURN_NONE;
}

static PyObject *set_enabled(PyObject *mod, PyObject *flag) {
    int on = PyObject_IsTrue(flag);
    if (on < 0) return NULL;
    if (on && Arr == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "configure first");
        return NULL;
    }
    enabled = on;
    Py_RETURN_NONE;
}

static PyNumberMethods number = {
    .nb_add = nb_add, .nb_subtract = nb_sub, .nb_multiply = nb_mul, .nb_true_divide = nb_div,
    .nb_inplace_add = nb_add_inplace, .nb_inplace_subtract = nb_sub_inplace,
    .nb_inplace_multiply = nb_mul_inplace, .nb_inplace_true_divide = nb_div_inplace,
    .nb_matrix_multiply = nb_matmul, .nb_inplace_matrix_multiply = nb_matmul_inplace,
    .nb_and = nb_and, .nb_or = nb_or, .nb_xor = nb_xor, .nb_inplace_and = nb_and_inplace,
    .nb_inplace_or = nb_or_inplace, .nb_inplace_xor = nb_xor_inplace,
    .nb_negative = nb_negative, .nb_positive = nb_positive, .nb_absolute = nb_absolute,
    .nb_invert = nb_invert,
};
static PyMappingMethods mapping = {.mp_subscript = mp_subscript,
                                   .mp_ass_subscript = mp_ass_subscript};
static PySequenceMethods sequence = {.sq_item = sq_item, .sq_ass_item = sq_ass_item};

static PyMethodDef array_methods[] = {
    {"__array_ufunc__", (PyCFunction)(void (*)(void))array_ufunc,
     METH_FASTCALL | METH_KEYWORDS, "NumPy's ufunc protocol (npjax/_calls/_interop.py)."},
    {NULL, NULL, 0, NULL}};

/* The buffer protocol (Python 3.11 has no ``__buffer__``; from 3.12 a Python ``__buffer__``
   overrides these slots): the buffer of what ``ndarray.__buffer__`` returns (``_host_memory.py``:
   a memoryview of a host array's own NumPy memory; a device array raises BufferError). As
   NumPy's, the exported view's ``obj`` is the array itself (``memoryview(a).obj is a``); the
   memoryview it came from, which keeps the memory alive, is held in ``internal`` until the
   view is released. */
static int array_getbuffer(PyObject *self, Py_buffer *view, int flags) {
    PyObject *mv = PyObject_CallMethod(self, "__buffer__", "i", flags);
    if (mv == NULL) return -1;
    int r = PyObject_GetBuffer(mv, view, flags);  /* view->obj: a new reference to mv */
    if (r < 0 || !PyMemoryView_Check(mv)) {  /* (not a memoryview: it releases its own) */
        Py_DECREF(mv);
        return r;
    }
    view->internal = mv;  /* our reference, and mv's export, until array_releasebuffer */
    Py_SETREF(view->obj, Py_NewRef(self));
    return 0;
}
static void array_releasebuffer(PyObject *self, Py_buffer *view) {
    PyObject *mv = (PyObject *)view->internal;
    if (mv == NULL) return;
    view->internal = NULL;
    Py_TYPE(mv)->tp_as_buffer->bf_releasebuffer(mv, view);  /* the memoryview's export */
    Py_DECREF(mv);
}
static PyBufferProcs array_buffer = {.bf_getbuffer = array_getbuffer,
                                     .bf_releasebuffer = array_releasebuffer};

static PyTypeObject ArrayBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "npjax._core._hostpath.ArrayBase",
    .tp_doc = "The base of npjax.ndarray: the host route's commonest operations in C.",
    .tp_basicsize = sizeof(PyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_as_number = &number,
    .tp_as_mapping = &mapping,
    .tp_as_sequence = &sequence,
    .tp_as_buffer = &array_buffer,
    .tp_methods = array_methods,
    .tp_getset = array_getset,
    .tp_iter = tp_iter,
    .tp_richcompare = tp_richcompare,
};

static PyMethodDef methods[] = {
    {"configure", configure, METH_O, "Hand over npjax.ndarray's layout and Python members."},
    {"layout_agrees", layout_agrees, METH_O, "Whether NumPy's fields read here are right."},
    {"elided_counts", elided_counts, METH_NOARGS, "The slots' temporary elisions per operator."},
    {"set_enabled", set_enabled, METH_O, "Turn the fast paths on or off."},
    {"set_ufunc_call", set_ufunc_call, METH_O, "Hand over ufunc.__call__ (Python)."},
    {"flush_counts", flush_counts, METH_NOARGS, "Add the host calls counted here to the cells."},
    {"use_vectorcall", use_vectorcall, METH_O, "Call npjax.ufunc by the vectorcall protocol."},
    {"use_function_vectorcall", use_function_vectorcall, METH_VARARGS,
     "Call a FunctionBase subclass by the vectorcall protocol."},
    {"set_transpose", set_transpose, METH_O, "Hand over ndarray.T's Python getter."},
    {"set_iter", set_iter, METH_O, "Hand over ndarray.__iter__ (Python)."},
    {"configure_calls", configure_calls, METH_VARARGS,
     "(_route.place_result, numpy.dtype): what function calls need."},
    {"set_array_ufunc", set_array_ufunc, METH_VARARGS,
     "Hand over ndarray.__array_ufunc__ (Python) and NumPy's ufunc -> npjax's."},
    {"scalar_operators", scalar_operators, METH_VARARGS,
     "Wrap NumPy scalar types' + - * / for a host array on the right."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "npjax._core._hostpath", NULL, -1,
                                    methods};

PyMODINIT_FUNC PyInit__hostpath(void) {
    ArrayBaseType.tp_new = PyBaseObject_Type.tp_new;
    if (PyType_Ready(&ArrayBaseType) < 0) return NULL;
    empty_tuple = PyTuple_New(0);
    zero = PyLong_FromLong(0);
    one = PyLong_FromLong(1);
    npjax_key = PyUnicode_InternFromString("__name__");
    npjax_name = PyUnicode_InternFromString("npjax");
    npjax_prefix = PyUnicode_InternFromString("npjax.");
    out_key = PyUnicode_InternFromString("out");
    T_name = PyUnicode_InternFromString("T");
    out_kwnames = out_key ? PyTuple_Pack(1, out_key) : NULL;
    if (!empty_tuple || !zero || !one || !npjax_key || !npjax_name || !npjax_prefix ||
        !out_key || !out_kwnames || !T_name)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&ArrayBaseType);
    if (PyModule_AddObject(m, "ArrayBase", (PyObject *)&ArrayBaseType) < 0) {
        Py_DECREF(&ArrayBaseType);
        Py_DECREF(m);
        return NULL;
    }
    FunctionBaseType.tp_new = PyType_GenericNew;
    if (PyType_Ready(&FunctionBaseType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&FunctionBaseType);
    if (PyModule_AddObject(m, "FunctionBase", (PyObject *)&FunctionBaseType) < 0) {
        Py_DECREF(&FunctionBaseType);
        Py_DECREF(m);
        return NULL;
    }
    UfuncBaseType.tp_new = PyType_GenericNew;
    if (PyType_Ready(&UfuncBaseType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&UfuncBaseType);
    if (PyModule_AddObject(m, "UfuncBase", (PyObject *)&UfuncBaseType) < 0) {
        Py_DECREF(&UfuncBaseType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

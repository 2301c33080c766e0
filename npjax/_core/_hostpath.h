/* The declarations the parts of ``npjax._core._hostpath`` share (the module is described in
   ``_hostpath.c``): NumPy's fields read here, the object layouts, the state ``configure``
   hands over, and the small helpers of the hot paths (inline here, as they were inlined
   within one file). Names shared between the parts have the prefix ``hp_``; everything
   else stays ``static`` in its part. */

#ifndef NPJAX_HOSTPATH_H
#define NPJAX_HOSTPATH_H

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

/* A name shared between the parts: hidden outside the module's shared object, so the
   parts reach one another directly, as within one file. */
#if defined(__GNUC__) || defined(__clang__)
#define HP_SHARED extern __attribute__((visibility("hidden")))
#else
#define HP_SHARED extern
#endif

/* --- state (``_hostpath.c``; ``configure`` fills it) ---------------------------------- */

HP_SHARED PyTypeObject *hp_Arr;      /* npjax.ndarray */
HP_SHARED PyTypeObject *hp_NpArr;    /* numpy.ndarray */
HP_SHARED PyObject *hp_ctxvar;       /* npjax's execution context (``_context._var``) */
HP_SHARED PyObject *hp_f8, *hp_b1, *hp_i8;  /* dtypes */
HP_SHARED PyObject *hp_device_dtypes;  /* ``_route._DEVICE_DTYPE`` */
HP_SHARED PyObject *hp_quiet_scalars;  /* NumPy scalar type -> its dtype */
HP_SHARED PyObject *hp_number_scalars; /* NumPy's number scalar types (a frozenset) */
HP_SHARED PyObject *hp_place_new;      /* ``_route.place_new`` */
HP_SHARED PyObject *hp_place_got;      /* ``_element_access._host_got`` */
HP_SHARED PyObject *hp_empty_tuple;
HP_SHARED Py_ssize_t hp_elide_items;
HP_SHARED int hp_enabled;
HP_SHARED Py_ssize_t hp_off_value, hp_off_layout, hp_off_base, hp_off_cache, hp_off_lens,
    hp_off_scalar, hp_off_readonly;
HP_SHARED PyObject *hp_npjax_key, *hp_npjax_name, *hp_npjax_prefix;

enum { ADD, SUB, MUL, DIV, MATMUL, AND, OR, XOR, NOPS };
/* NumPy's ufuncs of the operators: what NumPy's own ``x + y`` calls on arrays (past checks
   that cannot apply here: deferring to another type, temporary elision) */
HP_SHARED PyObject *hp_np_ops[NOPS];
HP_SHARED PyObject *hp_grows_off_host;  /* ``_route.grows_off_host`` */
/* NumPy's temporary elision (``_host_paths._ELIDABLE``, ``_temporary``): the dtype kinds
   each operator's member (0) and reflected member (1) may write into a temporary of (a
   string; NULL: never), the byte limit, the opcodes that apply an operator, the references
   a temporary and its buffer have here, and the elisions done per operator (for tests). */
HP_SHARED char *hp_elide_kinds[NOPS][2];
HP_SHARED Py_ssize_t hp_elide_bytes, hp_temporary_refs, hp_buffer_refs;
HP_SHARED char hp_binary_opcode[256];
HP_SHARED Py_ssize_t hp_elided[NOPS];
HP_SHARED PyObject *hp_itemsize_name, *hp_dtype_name;
HP_SHARED PyObject *hp_fb[NOPS][3];    /* the Python members */
HP_SHARED PyObject *hp_cnt[NOPS][3];   /* their count cells */
HP_SHARED Py_ssize_t hp_pending[NOPS][3];  /* their host calls not yet in the cells */
HP_SHARED PyObject *hp_fb_getitem, *hp_fb_setitem, *hp_fb_delitem;

/* --- helpers (``_hostpath_helpers.c``) ------------------------------------------------ */

enum { NSTATE = 10 };
HP_SHARED Py_ssize_t hp_off_weaklist;
HP_SHARED Py_ssize_t hp_state_offs[NSTATE];  /* every slot but ``__weakref__`` */
HP_SHARED PyObject *hp_fixed[NSTATE];  /* a kept object's slot values (NULL: the maker's) */
HP_SHARED PyTypeObject *hp_last_number_type;  /* (``number_operand``'s; borrowed) */

HP_SHARED Py_ssize_t hp_host_limit(void);
HP_SHARED int hp_user_frame(void);
HP_SHARED void hp_arr_dealloc(PyObject *self);
HP_SHARED PyObject *hp_new_owner(PyObject *data);
HP_SHARED PyObject *hp_new_view(PyObject *root, PyObject *data);

/* The small helpers of the hot paths, inline in each part (as they were inlined within one
   file). */

static inline Py_ssize_t np_size(PyObject *x) {
    Py_ssize_t n = 1;
    for (int i = 0; i < NP(x)->nd; i++) n *= NP(x)->dimensions[i];
    return n;
}

static inline int same_shape(PyObject *x, PyObject *y) {
    int nd = NP(x)->nd;
    if (NP(y)->nd != nd) return 0;
    for (int i = 0; i < nd; i++)
        if (NP(x)->dimensions[i] != NP(y)->dimensions[i]) return 0;
    return 1;
}

/* The NumPy data of a host array that is not a scalar (a host view's NumPy view), or NULL
   (a device array, a scalar, anything else). ``root``/``value``: its root and the root's
   data, when asked. */
static inline PyObject *host_data(PyObject *a, PyObject **root, PyObject **value) {
    PyObject *v = SLOT(a, hp_off_value);
    if (v != NULL && Py_TYPE(v) == hp_NpArr) {
        if (SLOT(a, hp_off_scalar) != Py_False) return NULL;
        if (root) { *root = a; *value = v; }
        return v;
    }
    if (v != Py_None) return NULL;  /* a device owner */
    PyObject *base = SLOT(a, hp_off_base);
    if (base == NULL || Py_TYPE(base) != hp_Arr) return NULL;
    PyObject *bv = SLOT(base, hp_off_value);
    if (bv == NULL || Py_TYPE(bv) != hp_NpArr) return NULL;
    PyObject *layout = SLOT(a, hp_off_layout);
    if (layout == NULL || Py_TYPE(layout) != hp_NpArr || SLOT(a, hp_off_scalar) != Py_False)
        return NULL;
    if (root) { *root = base; *value = bv; }
    return layout;
}

static inline PyObject *call2(PyObject *fn, PyObject *a, PyObject *b) {
    PyObject *args[2] = {a, b};
    return PyObject_Vectorcall(fn, args, 2, NULL);
}

/* A number operand NumPy gets as it is: a Python float or int (not a bool). */
#define PLAIN_NUMBER(o) (PyFloat_CheckExact(o) || PyLong_CheckExact(o))

/* An operand NumPy gets as it is: a Python float or int, or NumPy's number scalar
   (``_host_paths.host_data``'s numbers; ``hp_last_number_type``: the last type found there). */
static inline int number_operand(PyObject *o) {
    if (PLAIN_NUMBER(o)) return 1;
    if (Py_TYPE(o) == hp_last_number_type) return 1;  /* (the set is frozen and holds it) */
    int found = PySet_Contains(hp_number_scalars, (PyObject *)Py_TYPE(o));
    if (found < 0) {
        PyErr_Clear();
        return 0;
    }
    if (found) hp_last_number_type = Py_TYPE(o);
    return found;
}

/* ``_route.place_new(result, operands, limit)`` for a result NumPy gave (the reference
   is taken), its common case in C: a new array of a device dtype within the limit is a new
   host owner; a NumPy scalar stays as it is. */
static inline PyObject *placed(PyObject *result, Py_ssize_t limit, Py_ssize_t n,
                        PyObject *const *operands) {
    if (Py_TYPE(result) == hp_NpArr) {
        PyObject *dtype = NP(result)->descr;
        int device = dtype == hp_f8 || dtype == hp_b1;
        if (!device) {
            PyObject *known = PyDict_GetItemWithError(hp_device_dtypes, dtype);  /* borrowed */
            if (known == NULL && PyErr_Occurred()) {
                Py_DECREF(result);
                return NULL;
            }
            device = known == Py_True;
        }
        if (device && NP(result)->base == NULL && np_size(result) <= limit) {
            PyObject *new = hp_new_owner(result);
            Py_DECREF(result);
            return new;
        }
    }
    else if (!PyTuple_Check(result)) return result;  /* a NumPy scalar */
    PyObject *args = PyTuple_New(n), *lim = PyLong_FromSsize_t(limit), *r = NULL;
    if (args && lim) {
        for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(args, i, Py_NewRef(operands[i]));
        r = PyObject_Vectorcall(hp_place_new, (PyObject *[]){result, args, lim}, 3, NULL);
    }
    Py_XDECREF(args);
    Py_XDECREF(lim);
    Py_DECREF(result);
    return r;
}

/* --- operators (``_hostpath_operators.c``) -------------------------------------------- */

enum { NEG, POS, ABS, INV, NUNARY };
HP_SHARED const char *hp_cmp_names[6];
HP_SHARED PyObject *hp_fb_cmp[6], *hp_cnt_cmp[6];
HP_SHARED Py_ssize_t hp_pending_cmp[6];
HP_SHARED const char *hp_unary_names[NUNARY];
HP_SHARED PyObject *hp_fb_unary[NUNARY], *hp_cnt_unary[NUNARY];
HP_SHARED Py_ssize_t hp_pending_unary[NUNARY];
HP_SHARED PyNumberMethods hp_number;
HP_SHARED PyObject *hp_tp_richcompare(PyObject *self, PyObject *other, int op);

/* --- element access and ``a.T`` (``_hostpath_access.c``) ------------------------------ */

HP_SHARED PyTypeObject *hp_last_quiet_type;  /* (``quiet_dtype``'s) */
HP_SHARED PyMappingMethods hp_mapping;
HP_SHARED PySequenceMethods hp_sequence;
HP_SHARED PyGetSetDef hp_array_getset[];
HP_SHARED PyObject *hp_T_name;
HP_SHARED PyObject *hp_tp_iter(PyObject *self);
HP_SHARED PyObject *hp_set_transpose(PyObject *mod, PyObject *fget);
HP_SHARED PyObject *hp_set_iter(PyObject *mod, PyObject *fn);

/* --- function and method calls (``_hostpath_calls.c``) -------------------------------- */

/* A ``FunctionBase`` object (``_hostpath_calls.c`` describes it). */
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

HP_SHARED PyTypeObject hp_FunctionBaseType;
HP_SHARED PyObject *hp_functions_seen;  /* (for ``flush_counts``) */
HP_SHARED PyObject *hp_use_function_vectorcall(PyObject *mod, PyObject *args);
HP_SHARED PyObject *hp_configure_calls(PyObject *mod, PyObject *args);

/* --- ufunc calls (``_hostpath_ufuncs.c``) --------------------------------------------- */

/* A ``UfuncBase`` object (``_hostpath_ufuncs.c`` describes it). */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;  /* ``ufunc_vectorcall`` once given its facts */
    PyObject *np_ufunc;  /* NumPy's ufunc */
    PyObject *cell;      /* its host-call count cell */
    int binary;          /* elementwise, two inputs, one output */
    int unary;           /* elementwise, one input, one output */
    Py_ssize_t pending;  /* host calls not yet in the cell */
} UfuncObject;

HP_SHARED PyTypeObject hp_UfuncBaseType;
HP_SHARED PyObject *hp_ufuncs_seen;  /* every ufunc given its facts (for ``flush_counts``) */
HP_SHARED PyObject *hp_out_key, *hp_out_kwnames;  /* "out", ("out",) */
HP_SHARED PyMethodDef hp_array_methods[];
HP_SHARED PyObject *hp_set_ufunc_call(PyObject *mod, PyObject *fn);
HP_SHARED PyObject *hp_use_vectorcall(PyObject *mod, PyObject *cls);
HP_SHARED PyObject *hp_set_array_ufunc(PyObject *mod, PyObject *args);
HP_SHARED PyObject *hp_scalar_operators(PyObject *mod, PyObject *args);

#endif

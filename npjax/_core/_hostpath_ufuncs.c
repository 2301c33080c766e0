/* npjax._core._hostpath, ufunc calls: ``UfuncBase``, ``ndarray.__array_ufunc__`` and NumPy
   scalars' operators with a host array on the right (``_hostpath.c`` describes the module). */

#include "_hostpath.h"

/* --- ufunc calls ---------------------------------------------------------------------- */

/* ``UfuncBase``: the base of ``npjax.ufunc``; its call runs ``npjax.add(a, b)``'s common case
   (two operands, host arrays or numbers, no keywords) and the Python ``__call__`` for
   everything else. (Its object, ``UfuncObject``: ``_hostpath.h``.) */

PyObject *hp_ufuncs_seen = NULL;  /* every ufunc given its facts (for ``flush_counts``) */

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
    if (hp_ufuncs_seen == NULL && (hp_ufuncs_seen = PyList_New(0)) == NULL) return NULL;
    if (PyList_Append(hp_ufuncs_seen, self) < 0) return NULL;
    Py_RETURN_NONE;
}

/* An operand of the ufunc's common case: a host array's data, or a Python number. */
static PyObject *ufunc_operand(PyObject *a) {
    if (Py_TYPE(a) == hp_Arr) return host_data(a, NULL, NULL);
    return number_operand(a) ? a : NULL;
}

static PyObject *ufunc_fast(UfuncObject *u, PyObject *a, PyObject *b, int *done) {
    *done = 0;
    PyObject *x = ufunc_operand(a), *y = x ? ufunc_operand(b) : NULL;
    if (y == NULL) return NULL;
    Py_ssize_t size = 1;  /* (two numbers: NumPy's scalar) */
    if (Py_TYPE(x) == hp_NpArr && Py_TYPE(y) == hp_NpArr)
        size = same_shape(x, y) ? np_size(x) : np_size(x) * np_size(y);
    else if (Py_TYPE(x) == hp_NpArr) size = np_size(x);
    else if (Py_TYPE(y) == hp_NpArr) size = np_size(y);
    Py_ssize_t limit = hp_host_limit();
    if (limit == -2) { *done = 1; return NULL; }
    if (limit < 0 || size > limit || !hp_user_frame()) return NULL;
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
    Py_ssize_t limit = hp_host_limit();
    if (limit == -2) { *done = 1; return NULL; }
    if (limit < 0 || !hp_user_frame()) return NULL;
    *done = 1;
    PyObject *result = PyObject_CallOneArg(u->np_ufunc, x);
    if (result == NULL) return NULL;
    u->pending++;
    return placed(result, limit, 1, &a);
}

/* ``npjax.minimum(a, b, out=c)``, ``npjax.sqrt(a, out=c)`` (``b`` NULL): the only keyword
   ``out``, a host array: the out writer's host branch (``_core/_out.out_buffer``) in C. NumPy's
   ufunc writes into its data and the array itself is the result. */
PyObject *hp_out_key = NULL, *hp_out_kwnames = NULL;  /* "out", ("out",) */

static PyObject *ufunc_fast_out(UfuncObject *u, PyObject *a, PyObject *b, PyObject *out,
                                int *done) {
    *done = 0;
    if (Py_TYPE(out) != hp_Arr) return NULL;
    PyObject *x = ufunc_operand(a), *y = b == NULL ? x : x ? ufunc_operand(b) : NULL;
    PyObject *o = y ? host_data(out, NULL, NULL) : NULL;
    if (o == NULL) return NULL;
    Py_ssize_t limit = hp_host_limit();
    if (limit == -2) { *done = 1; return NULL; }
    if (limit < 0 || !hp_user_frame()) return NULL;
    *done = 1;
    u->pending++;  /* (counted before the call, as the Python call counts it) */
    PyObject *stack[3] = {x, y, o};
    if (b == NULL) stack[1] = o;
    PyObject *result = PyObject_Vectorcall(u->np_ufunc, stack, b == NULL ? 1 : 2, hp_out_kwnames);
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
    if (hp_enabled && u->binary && u->np_ufunc != NULL && PyTuple_GET_SIZE(args) == 2 &&
        (kwargs == NULL || PyDict_GET_SIZE(kwargs) == 0)) {
        int done;
        PyObject *r = ufunc_fast(u, PyTuple_GET_ITEM(args, 0), PyTuple_GET_ITEM(args, 1),
                                 &done);
        if (r != NULL || done) return r;
    }
    else if (hp_enabled && u->binary && u->np_ufunc != NULL && PyTuple_GET_SIZE(args) == 2 &&
             kwargs != NULL && PyDict_GET_SIZE(kwargs) == 1) {
        PyObject *out = PyDict_GetItemWithError(kwargs, hp_out_key);
        if (out == NULL && PyErr_Occurred()) return NULL;
        if (out != NULL) {
            int done;
            PyObject *r = ufunc_fast_out(u, PyTuple_GET_ITEM(args, 0),
                                         PyTuple_GET_ITEM(args, 1), out, &done);
            if (r != NULL || done) return r;
        }
    }
    else if (hp_enabled && u->unary && u->np_ufunc != NULL && PyTuple_GET_SIZE(args) == 1 &&
             (kwargs == NULL || PyDict_GET_SIZE(kwargs) == 0)) {
        int done;
        PyObject *r = ufunc_fast1(u, PyTuple_GET_ITEM(args, 0), &done);
        if (r != NULL || done) return r;
    }
    else if (hp_enabled && u->unary && u->np_ufunc != NULL && PyTuple_GET_SIZE(args) == 1 &&
             kwargs != NULL && PyDict_GET_SIZE(kwargs) == 1) {
        PyObject *out = PyDict_GetItemWithError(kwargs, hp_out_key);
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

static PyObject *fb_array_ufunc = NULL;  /* ndarray's Python ``__array_ufunc__`` */
static PyObject *ours_map = NULL;        /* NumPy's ufunc -> npjax's */

/* ``ndarray.__array_ufunc__``: NumPy's scalar operators with a host array (``s * a``) in
   the C call's common case, the Python member for everything else. */
static PyObject *array_ufunc(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    if (hp_enabled && nargs == 4 && kwnames == NULL && ours_map != NULL &&
        PyUnicode_Check(args[1]) && PyUnicode_CompareWithASCIIString(args[1], "__call__") == 0) {
        PyObject *ours = PyDict_GetItemWithError(ours_map, args[0]);  /* borrowed */
        if (ours == NULL && PyErr_Occurred()) return NULL;
        if (ours != NULL && PyObject_TypeCheck(ours, &hp_UfuncBaseType)) {
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

PyObject *hp_set_array_ufunc(PyObject *mod, PyObject *args) {
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
    if (hp_enabled && Py_TYPE(b) == hp_Arr && scalar_ufunc[op] != NULL) {
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
PyObject *hp_scalar_operators(PyObject *mod, PyObject *args) {
    PyObject *types, *ufuncs;
    if (!PyArg_ParseTuple(args, "O!O!", &PyTuple_Type, &types, &PyTuple_Type, &ufuncs))
        return NULL;
    if (PyTuple_GET_SIZE(ufuncs) != NSCALAR_OPS) {
        PyErr_SetString(PyExc_TypeError, "scalar_operators: four ufuncs (+ - * /)");
        return NULL;
    }
    for (int op = 0; op < NSCALAR_OPS; op++) {
        PyObject *u = PyTuple_GET_ITEM(ufuncs, op);
        if (!PyObject_TypeCheck(u, &hp_UfuncBaseType) || !((UfuncObject *)u)->binary ||
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
    if (hp_enabled && u->np_ufunc != NULL) {
        int done = 0;
        PyObject *r = NULL;
        if (nkw == 0 && n == 2 && u->binary) r = ufunc_fast(u, args[0], args[1], &done);
        else if (nkw == 0 && n == 1 && u->unary) r = ufunc_fast1(u, args[0], &done);
        else if (nkw == 1 && n == 2 && u->binary &&
                 PyUnicode_Compare(PyTuple_GET_ITEM(kwnames, 0), hp_out_key) == 0)
            r = ufunc_fast_out(u, args[0], args[1], args[2], &done);
        else if (nkw == 1 && n == 1 && u->unary &&
                 PyUnicode_Compare(PyTuple_GET_ITEM(kwnames, 0), hp_out_key) == 0)
            r = ufunc_fast_out(u, args[0], NULL, args[1], &done);
        if (PyErr_Occurred() && !done) return NULL;
        if (r != NULL || done) return r;
    }
    return call_member(fb_ufunc_call, self, args, n, kwnames);
}

/* Let instances of ``cls`` (npjax.ufunc, a Python subclass of UfuncBase whose ``__call__``
   is the base's) be called by the vectorcall protocol: heap types do not inherit it. */
PyObject *hp_use_vectorcall(PyObject *mod, PyObject *cls) {
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &hp_UfuncBaseType)) {
        PyErr_SetString(PyExc_TypeError, "use_vectorcall: a subclass of UfuncBase");
        return NULL;
    }
    PyTypeObject *tp = (PyTypeObject *)cls;
    if (tp->tp_call != ufunc_call) Py_RETURN_FALSE;  /* a __call__ of its own */
    tp->tp_vectorcall_offset = offsetof(UfuncObject, vectorcall);
    tp->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
    Py_RETURN_TRUE;
}

PyObject *hp_set_ufunc_call(PyObject *mod, PyObject *fn) {
    Py_XSETREF(fb_ufunc_call, Py_NewRef(fn));
    Py_RETURN_NONE;
}

static PyMethodDef ufunc_methods[] = {
    {"_hostpath_set", ufunc_set_fast, METH_VARARGS,
     "(NumPy's ufunc, count cell, binary): the C call's facts."},
    {NULL, NULL, 0, NULL}};

PyTypeObject hp_UfuncBaseType = {
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

/* ``ArrayBase``'s methods (``_hostpath.c``). */
PyMethodDef hp_array_methods[] = {
    {"__array_ufunc__", (PyCFunction)(void (*)(void))array_ufunc,
     METH_FASTCALL | METH_KEYWORDS, "NumPy's ufunc protocol (npjax/_calls/_interop.py)."},
    {NULL, NULL, 0, NULL}};

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

/* The module's parts, each a file of one job (declarations they share: ``_hostpath.h``):
   ``_hostpath_helpers.c`` (the host limit, the caller, the result wrappers),
   ``_hostpath_operators.c`` (binary operators, comparisons, unary operators),
   ``_hostpath_access.c`` (``a[index]``, ``a[index] = value``, ``a.T``, ``iter(a)``),
   ``_hostpath_calls.c`` (``FunctionBase``), ``_hostpath_ufuncs.c`` (``UfuncBase``, NumPy
   scalars' operators), and this file: the state, ``configure``, the counts, ``ArrayBase``
   and the module. */

#include "_hostpath.h"

/* --- state ----------------------------------------------------------------------------- */

PyTypeObject *hp_Arr = NULL;      /* npjax.ndarray */
PyTypeObject *hp_NpArr = NULL;    /* numpy.ndarray */
PyObject *hp_ctxvar = NULL;       /* npjax's execution context (``_context._var``) */
PyObject *hp_f8 = NULL, *hp_b1 = NULL, *hp_i8 = NULL;  /* dtypes */
PyObject *hp_device_dtypes = NULL;  /* ``_route._DEVICE_DTYPE`` */
PyObject *hp_quiet_scalars = NULL;  /* NumPy scalar type -> its dtype */
PyObject *hp_number_scalars = NULL; /* NumPy's number scalar types (a frozenset) */
PyObject *hp_place_new = NULL;      /* ``_route.place_new`` */
PyObject *hp_place_got = NULL;      /* ``_element_access._host_got`` */
PyObject *hp_empty_tuple = NULL;
static PyObject *zero = NULL, *one = NULL;
Py_ssize_t hp_elide_items = 0;
int hp_enabled = 0;
Py_ssize_t hp_off_value, hp_off_layout, hp_off_base, hp_off_cache, hp_off_lens, hp_off_scalar,
    hp_off_readonly;
static Py_ssize_t off_root_shape, off_mine, off_version;
PyObject *hp_npjax_key = NULL, *hp_npjax_name = NULL, *hp_npjax_prefix = NULL;

static const char *names[NOPS][3] = {
    {"__add__", "__radd__", "__iadd__"}, {"__sub__", "__rsub__", "__isub__"},
    {"__mul__", "__rmul__", "__imul__"}, {"__truediv__", "__rtruediv__", "__itruediv__"},
    {"__matmul__", "__rmatmul__", "__imatmul__"}, {"__and__", "__rand__", "__iand__"},
    {"__or__", "__ror__", "__ior__"}, {"__xor__", "__rxor__", "__ixor__"}};
PyObject *hp_np_ops[NOPS];  /* (the operators' state: ``_hostpath.h`` says what each is) */
PyObject *hp_grows_off_host = NULL;
char *hp_elide_kinds[NOPS][2];
static char elide_kind_text[NOPS][2][16];
Py_ssize_t hp_elide_bytes = 0, hp_temporary_refs = 1, hp_buffer_refs = 2;
char hp_binary_opcode[256];
Py_ssize_t hp_elided[NOPS];
PyObject *hp_itemsize_name = NULL, *hp_dtype_name = NULL;
PyObject *hp_fb[NOPS][3];
PyObject *hp_cnt[NOPS][3];
Py_ssize_t hp_pending[NOPS][3];
PyObject *hp_fb_getitem = NULL, *hp_fb_setitem = NULL, *hp_fb_delitem = NULL;

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
    if (hp_itemsize_name == NULL &&
        (hp_itemsize_name = PyUnicode_InternFromString("itemsize")) == NULL)
        return -1;
    if (hp_dtype_name == NULL && (hp_dtype_name = PyUnicode_InternFromString("dtype")) == NULL)
        return -1;
    memcpy(hp_binary_opcode, table, sizeof(table));
    memcpy(hp_elide_kinds, found, sizeof(found));
    hp_elide_bytes = b, hp_temporary_refs = t, hp_buffer_refs = r;
    return 0;
}

/* The elisions the slots did per operator (in the order of ``_fast.OPERATORS``). */
static PyObject *elided_counts(PyObject *mod, PyObject *unused) {
    PyObject *counts = PyTuple_New(NOPS);
    if (counts == NULL) return NULL;
    for (int op = 0; op < NOPS; op++) {
        PyObject *n = PyLong_FromSsize_t(hp_elided[op]);
        if (n == NULL) {
            Py_DECREF(counts);
            return NULL;
        }
        PyTuple_SET_ITEM(counts, op, n);
    }
    return counts;
}

static PyObject *flush_counts(PyObject *mod, PyObject *unused) {
    for (int op = 0; op < NOPS; op++)
        for (int side = 0; side < 3; side++)
            if (hp_pending[op][side] && hp_cnt[op][side] != NULL) {
                if (add_to_cell(hp_cnt[op][side], hp_pending[op][side]) < 0) return NULL;
                hp_pending[op][side] = 0;
            }
    for (int op = 0; op < 6; op++)
        if (hp_pending_cmp[op] && hp_cnt_cmp[op] != NULL) {
            if (add_to_cell(hp_cnt_cmp[op], hp_pending_cmp[op]) < 0) return NULL;
            hp_pending_cmp[op] = 0;
        }
    for (int op = 0; op < NUNARY; op++)
        if (hp_pending_unary[op] && hp_cnt_unary[op] != NULL) {
            if (add_to_cell(hp_cnt_unary[op], hp_pending_unary[op]) < 0) return NULL;
            hp_pending_unary[op] = 0;
        }
    Py_ssize_t m = hp_functions_seen == NULL ? 0 : PyList_GET_SIZE(hp_functions_seen);
    for (Py_ssize_t i = 0; i < m; i++) {
        FunctionObject *f = (FunctionObject *)PyList_GET_ITEM(hp_functions_seen, i);
        if (f->pending && f->cell != NULL) {
            if (add_to_cell(f->cell, f->pending) < 0) return NULL;
            f->pending = 0;
        }
    }
    Py_ssize_t n = hp_ufuncs_seen == NULL ? 0 : PyList_GET_SIZE(hp_ufuncs_seen);
    for (Py_ssize_t i = 0; i < n; i++) {
        UfuncObject *u = (UfuncObject *)PyList_GET_ITEM(hp_ufuncs_seen, i);
        if (u->pending && u->cell != NULL) {
            if (add_to_cell(u->cell, u->pending) < 0) return NULL;
            u->pending = 0;
        }
    }
    Py_RETURN_NONE;
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
        if ((fcmp[op] = get_item(fbs, hp_cmp_names[op])) == NULL) return NULL;
        if ((ccmp[op] = get_item(cs, hp_cmp_names[op])) == NULL) return NULL;
        if (!PyList_CheckExact(ccmp[op]) || PyList_GET_SIZE(ccmp[op]) != 1) {
            PyErr_SetString(PyExc_TypeError, "configure: count cells are [n] lists");
            return NULL;
        }
    }
    for (int op = 0; op < NUNARY; op++) {
        if ((fun[op] = get_item(fbs, hp_unary_names[op])) == NULL) return NULL;
        if ((cun[op] = get_item(cs, hp_unary_names[op])) == NULL) return NULL;
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

    Py_XSETREF(hp_Arr, (PyTypeObject *)Py_NewRef(cls));
    Py_XSETREF(hp_NpArr, (PyTypeObject *)Py_NewRef(objs[0]));
    Py_XSETREF(hp_ctxvar, Py_NewRef(objs[1]));
    Py_XSETREF(hp_f8, Py_NewRef(objs[2]));
    Py_XSETREF(hp_b1, Py_NewRef(objs[3]));
    Py_XSETREF(hp_i8, Py_NewRef(objs[4]));
    Py_XSETREF(hp_device_dtypes, Py_NewRef(objs[5]));
    PyObject *quiet = PyDict_Copy(objs[6]);  /* (a copy of its own: see ``quiet_dtype``) */
    if (quiet == NULL) return NULL;
    Py_XSETREF(hp_quiet_scalars, quiet);
    hp_last_quiet_type = NULL;
    Py_XSETREF(hp_place_new, Py_NewRef(objs[9]));
    Py_XSETREF(hp_place_got, Py_NewRef(objs[10]));
    Py_XSETREF(hp_number_scalars, Py_NewRef(objs[12]));
    hp_last_number_type = NULL;
    Py_XSETREF(hp_grows_off_host, Py_NewRef(objs[13]));
    for (int op = 0; op < NOPS; op++)
        Py_XSETREF(hp_np_ops[op], Py_NewRef(PyTuple_GET_ITEM(objs[14], op)));
    for (int op = 0; op < NOPS; op++)
        for (int s = 0; s < 3; s++) {
            Py_XSETREF(hp_fb[op][s], Py_NewRef(fbn[op][s]));
            Py_XSETREF(hp_cnt[op][s], Py_NewRef(cn[op][s]));
        }
    for (int op = 0; op < 6; op++) {
        Py_XSETREF(hp_fb_cmp[op], Py_NewRef(fcmp[op]));
        Py_XSETREF(hp_cnt_cmp[op], Py_NewRef(ccmp[op]));
    }
    for (int op = 0; op < NUNARY; op++) {
        Py_XSETREF(hp_fb_unary[op], Py_NewRef(fun[op]));
        Py_XSETREF(hp_cnt_unary[op], Py_NewRef(cun[op]));
    }
    Py_XSETREF(hp_fb_getitem, Py_NewRef(g));
    Py_XSETREF(hp_fb_setitem, Py_NewRef(st));
    Py_XSETREF(hp_fb_delitem, Py_NewRef(dl));
    hp_off_value = offs[0], hp_off_layout = offs[1], off_root_shape = offs[2];
    hp_off_base = offs[3];
    hp_off_cache = offs[4], hp_off_lens = offs[5], hp_off_scalar = offs[6], off_mine = offs[7];
    hp_off_readonly = offs[8], off_version = offs[9];
    for (int i = 0; i < NSTATE; i++) hp_state_offs[i] = offs[i];
    PyObject *kept[NSTATE] = {NULL, NULL, Py_None, NULL, Py_None, NULL, Py_False, Py_False,
                              Py_False, zero};  /* (in the order of ``slots``) */
    for (int i = 0; i < NSTATE; i++) hp_fixed[i] = kept[i];
    hp_off_weaklist = ((PyTypeObject *)cls)->tp_weaklistoffset;
    ((PyTypeObject *)cls)->tp_dealloc = hp_arr_dealloc;
    hp_elide_items = elide;
    hp_enabled = 1;
    Py_RETURN_NONE;
}

static PyObject *set_enabled(PyObject *mod, PyObject *flag) {
    int on = PyObject_IsTrue(flag);
    if (on < 0) return NULL;
    if (on && hp_Arr == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "configure first");
        return NULL;
    }
    hp_enabled = on;
    Py_RETURN_NONE;
}

/* --- ArrayBase and the module ---------------------------------------------------------- */

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
    .tp_as_number = &hp_number,
    .tp_as_mapping = &hp_mapping,
    .tp_as_sequence = &hp_sequence,
    .tp_as_buffer = &array_buffer,
    .tp_methods = hp_array_methods,
    .tp_getset = hp_array_getset,
    .tp_iter = hp_tp_iter,
    .tp_richcompare = hp_tp_richcompare,
};

static PyMethodDef methods[] = {
    {"configure", configure, METH_O, "Hand over npjax.ndarray's layout and Python members."},
    {"layout_agrees", layout_agrees, METH_O, "Whether NumPy's fields read here are right."},
    {"elided_counts", elided_counts, METH_NOARGS, "The slots' temporary elisions per operator."},
    {"set_enabled", set_enabled, METH_O, "Turn the fast paths on or off."},
    {"set_ufunc_call", hp_set_ufunc_call, METH_O, "Hand over ufunc.__call__ (Python)."},
    {"flush_counts", flush_counts, METH_NOARGS, "Add the host calls counted here to the cells."},
    {"use_vectorcall", hp_use_vectorcall, METH_O, "Call npjax.ufunc by the vectorcall protocol."},
    {"use_function_vectorcall", hp_use_function_vectorcall, METH_VARARGS,
     "Call a FunctionBase subclass by the vectorcall protocol."},
    {"set_transpose", hp_set_transpose, METH_O, "Hand over ndarray.T's Python getter."},
    {"set_iter", hp_set_iter, METH_O, "Hand over ndarray.__iter__ (Python)."},
    {"configure_calls", hp_configure_calls, METH_VARARGS,
     "(_route.place_result, numpy.dtype): what function calls need."},
    {"set_array_ufunc", hp_set_array_ufunc, METH_VARARGS,
     "Hand over ndarray.__array_ufunc__ (Python) and NumPy's ufunc -> npjax's."},
    {"scalar_operators", hp_scalar_operators, METH_VARARGS,
     "Wrap NumPy scalar types' + - * / for a host array on the right."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "npjax._core._hostpath", NULL, -1,
                                    methods};

PyMODINIT_FUNC PyInit__hostpath(void) {
    ArrayBaseType.tp_new = PyBaseObject_Type.tp_new;
    if (PyType_Ready(&ArrayBaseType) < 0) return NULL;
    hp_empty_tuple = PyTuple_New(0);
    zero = PyLong_FromLong(0);
    one = PyLong_FromLong(1);
    hp_npjax_key = PyUnicode_InternFromString("__name__");
    hp_npjax_name = PyUnicode_InternFromString("npjax");
    hp_npjax_prefix = PyUnicode_InternFromString("npjax.");
    hp_out_key = PyUnicode_InternFromString("out");
    hp_T_name = PyUnicode_InternFromString("T");
    hp_out_kwnames = hp_out_key ? PyTuple_Pack(1, hp_out_key) : NULL;
    if (!hp_empty_tuple || !zero || !one || !hp_npjax_key || !hp_npjax_name || !hp_npjax_prefix ||
        !hp_out_key || !hp_out_kwnames || !hp_T_name)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&ArrayBaseType);
    if (PyModule_AddObject(m, "ArrayBase", (PyObject *)&ArrayBaseType) < 0) {
        Py_DECREF(&ArrayBaseType);
        Py_DECREF(m);
        return NULL;
    }
    hp_FunctionBaseType.tp_new = PyType_GenericNew;
    if (PyType_Ready(&hp_FunctionBaseType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&hp_FunctionBaseType);
    if (PyModule_AddObject(m, "FunctionBase", (PyObject *)&hp_FunctionBaseType) < 0) {
        Py_DECREF(&hp_FunctionBaseType);
        Py_DECREF(m);
        return NULL;
    }
    hp_UfuncBaseType.tp_new = PyType_GenericNew;
    if (PyType_Ready(&hp_UfuncBaseType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&hp_UfuncBaseType);
    if (PyModule_AddObject(m, "UfuncBase", (PyObject *)&hp_UfuncBaseType) < 0) {
        Py_DECREF(&hp_UfuncBaseType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

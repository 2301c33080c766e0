/* npjax._core._hostpath, element access: ``a[index]``, ``a[index] = value``, ``a.T`` and
   ``iter(a)`` of ``ArrayBase`` (``_hostpath.c`` describes the module). */

#include "_hostpath.h"

/* --- element access ------------------------------------------------------------------ */

/* The dtype NumPy's scalar type ``t`` writes without a cast (``hp_quiet_scalars``; borrowed),
   or NULL (an error set, or none). The last type found and its dtype are kept: the mapping
   is configure's own copy, never changed, which holds both. */
PyTypeObject *hp_last_quiet_type = NULL;
static PyObject *last_quiet_dtype = NULL;

static PyObject *quiet_dtype(PyTypeObject *t) {
    if (t == hp_last_quiet_type) return last_quiet_dtype;
    PyObject *dtype = PyDict_GetItemWithError(hp_quiet_scalars, (PyObject *)t);
    if (dtype != NULL) {
        hp_last_quiet_type = t;
        last_quiet_dtype = dtype;
    }
    return dtype;
}


/* A part of an index as NumPy gets it on the host route (``_element_access._host_part``;
   borrowed), or NULL: an int, a slice, None, Ellipsis, NumPy's array or number scalar as
   it is, a host array's data (not a scalar's). */
static PyObject *index_part(PyObject *k) {
    if (PyLong_CheckExact(k) || PySlice_Check(k) || k == Py_None || k == Py_Ellipsis ||
        Py_TYPE(k) == hp_NpArr)
        return k;
    if (Py_TYPE(k) == hp_Arr) return host_data(k, NULL, NULL);
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
    if (hp_enabled && Py_TYPE(self) == hp_Arr &&
        (data = host_data(self, &root, &value)) != NULL &&
        (key = host_index(index, &owned)) != NULL) {
        PyObject *got = PyObject_GetItem(data, key);
        if (owned) Py_DECREF(key);
        if (got == NULL || Py_TYPE(got) != hp_NpArr) return got;  /* an element, an error */
        if (NP(got)->base == value) {  /* the common view, of the root's own memory */
            PyObject *view = hp_new_view(root, got);
            Py_DECREF(got);
            return view;
        }
        char kind = NP_KIND(data);
        Py_ssize_t limit = kind == 'O' || kind == 'V' ? -1 : hp_host_limit();
        if (limit == -2) {
            Py_DECREF(got);
            return NULL;
        }
        if (limit >= 0)  /* a new array (fancy indexing): ``place_result``'s common case */
            return placed(got, limit, 1, &self);
        PyObject *r = call2(hp_place_got, self, got);  /* (object arrays hold arrays) */
        Py_DECREF(got);
        return r;
    }
    return call2(hp_fb_getitem, self, index);
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
        r = call2(hp_fb_delitem, self, index);
    }
    else {
        PyObject *data, *key;
        int owned;
        if (hp_enabled && Py_TYPE(self) == hp_Arr &&
            (data = host_data(self, NULL, NULL)) != NULL &&
            (key = host_index(index, &owned)) != NULL) {
            /* what NumPy writes without a cast that could warn: a Python float or int into
               float64 or int64, NumPy's scalar or a host array of the array's own dtype */
            PyObject *dtype = NP(data)->descr, *new = NULL;
            if (PLAIN_NUMBER(value)) {
                if (dtype == hp_f8 || dtype == hp_i8) new = value;
            }
            else if (Py_TYPE(value) == hp_Arr) {
                PyObject *given = host_data(value, NULL, NULL);
                if (given != NULL && NP(given)->descr == dtype) new = given;
            }
            else if (quiet_dtype(Py_TYPE(value)) == dtype)
                new = value;
            int r = PyErr_Occurred() ? -1 : new != NULL ? PyObject_SetItem(data, key, new) : 1;
            if (owned) Py_DECREF(key);
            if (r <= 0) return r;
        }
        r = PyObject_Vectorcall(hp_fb_setitem, (PyObject *[]){self, index, value}, 3, NULL);
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

/* ``ArrayBase``'s mapping and sequence slots (``_hostpath.c``). */
PyMappingMethods hp_mapping = {.mp_subscript = mp_subscript,
                            .mp_ass_subscript = mp_ass_subscript};
PySequenceMethods hp_sequence = {.sq_item = sq_item, .sq_ass_item = sq_ass_item};

/* --- ``a.T`` -------------------------------------------------------------------------- */

static PyObject *fb_T = NULL;  /* the Python property's getter */
PyObject *hp_T_name = NULL;

/* ``a.T`` of a host array: NumPy's transposed view of its data, a view of its root (as the
   Python property makes it); the Python property for everything else. */
static PyObject *get_T(PyObject *self, void *closure) {
    PyObject *root, *value, *data;
    if (hp_enabled && Py_TYPE(self) == hp_Arr &&
        (data = host_data(self, &root, &value)) != NULL) {
        PyObject *view = PyObject_GetAttr(data, hp_T_name);
        if (view == NULL) return NULL;
        if (Py_TYPE(view) == hp_NpArr && NP(view)->base == value) {
            PyObject *r = hp_new_view(root, view);
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

PyObject *hp_set_transpose(PyObject *mod, PyObject *fget) {
    Py_XSETREF(fb_T, Py_NewRef(fget));
    Py_RETURN_NONE;
}

/* ``iter(a)`` of a host vector: NumPy's iterator of its data (NumPy's scalars, as the
   Python member gives); the Python member for everything else. */
static PyObject *fb_iter = NULL;

PyObject *hp_tp_iter(PyObject *self) {
    PyObject *data;
    if (hp_enabled && Py_TYPE(self) == hp_Arr && (data = host_data(self, NULL, NULL)) != NULL &&
        NP(data)->nd == 1)
        return PyObject_GetIter(data);
    if (fb_iter == NULL) {
        PyErr_SetString(PyExc_TypeError, "npjax: the Python member is not installed");
        return NULL;
    }
    return PyObject_CallOneArg(fb_iter, self);
}

PyObject *hp_set_iter(PyObject *mod, PyObject *fn) {
    Py_XSETREF(fb_iter, Py_NewRef(fn));
    Py_RETURN_NONE;
}

PyGetSetDef hp_array_getset[] = {
    {"T", get_T, NULL, "The transposed array (NumPy's view for a host array).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

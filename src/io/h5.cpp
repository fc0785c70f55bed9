#include "io/h5.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "core/quote.hpp"

namespace lie::h5 {

namespace {

std::string name_of(hid_t loc) {
  if (loc < 0) return "?";
  char buf[512];
  const ssize_t n = H5Iget_name(loc, buf, sizeof buf);
  if (n <= 0) return "/";
  return std::string(buf);
}

std::string where(hid_t loc, const std::string& name) {
  std::string base = name_of(loc);
  if (!name.empty() && name[0] == '/') return name;
  if (base.empty() || base.back() != '/') base += '/';
  return base + name;
}

hid_t check_id(hid_t id, const std::string& what) {
  if (id < 0) throw Error("HDF5: cannot " + what);
  return id;
}

void check(herr_t e, const std::string& what) {
  if (e < 0) throw Error("HDF5: cannot " + what);
}

// Parallel files open in this process (file id -> communicator), for the agreement below.
std::vector<std::pair<hid_t, MPI_Comm>>& parallel_files() {
  static std::vector<std::pair<hid_t, MPI_Comm>> files;
  return files;
}

MPI_Comm parallel_comm_of(hid_t obj) {
  if (obj < 0 || parallel_files().empty()) return MPI_COMM_NULL;
  const hid_t fid = H5Iget_file_id(obj);  // the file's id, one more reference
  if (fid < 0) return MPI_COMM_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  for (const auto& [id, c] : parallel_files())
    if (id == fid) comm = c;
  H5Idec_ref(fid);
  return comm;
}

/// Throws `local_error` (if not empty) or, on a parallel communicator, the first failing
/// rank's message on every rank. Collective on `comm` unless it is MPI_COMM_NULL.
void agree_on(MPI_Comm comm, const std::string& local_error) {
  int size = 1, rank = 0;
  if (comm != MPI_COMM_NULL) {
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
  }
  if (size == 1) {
    if (!local_error.empty()) throw Error(local_error);
    return;
  }
  int who = local_error.empty() ? size : rank, first = size;
  MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;
  unsigned long n = local_error.size();
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG, first, comm);
  std::string msg = rank == first ? local_error : std::string(n, '\0');
  if (n) MPI_Bcast(msg.data(), static_cast<int>(n), MPI_CHAR, first, comm);
  throw Error(msg);
}

// Metadata changes on a parallel file (creating groups, datasets and attributes, writing
// attributes, extending datasets) are collective; a full disk can make one of them fail on
// one rank only (the rank that flushes the metadata cache), so every rank agrees on the
// outcome before going on. `obj` is any object of the file (or the parent of a new one).
void check_all(herr_t e, const std::string& what, hid_t obj) {
  agree_on(parallel_comm_of(obj), e < 0 ? "HDF5: cannot " + what : std::string());
}

hid_t check_id_all(hid_t id, const std::string& what, hid_t parent) {
  agree_on(parallel_comm_of(parent), id < 0 ? "HDF5: cannot " + what : std::string());
  return id;
}

Handle lcpl_with_parents() {
  Handle p(check_id(H5Pcreate(H5P_LINK_CREATE), "create link property list"));
  check(H5Pset_create_intermediate_group(p, 1), "set intermediate group creation");
  return p;
}

// Dataset creation: no fill values are ever written (every dataset is written in full). In a
// parallel file storage is allocated when a dataset is created or extended, and writing fill
// values then is a collective write inside HDF5: on a full disk one rank fails it and returns
// while the others wait in HDF5's barrier. Without fill values the allocation writes nothing.
Handle no_fill_dcpl() {
  Handle p(check_id(H5Pcreate(H5P_DATASET_CREATE), "create dataset creation property list"));
  check(H5Pset_fill_time(p, H5D_FILL_TIME_NEVER), "set fill time");
  return p;
}

Handle scalar_space() { return Handle(check_id(H5Screate(H5S_SCALAR), "create scalar dataspace")); }

Handle simple_space(const std::vector<hsize_t>& dims, const std::vector<hsize_t>* maxdims = nullptr) {
  return Handle(check_id(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), maxdims ? maxdims->data() : nullptr),
                         "create dataspace"));
}

Handle collective_xfer(const File& f) {
  Handle p(check_id(H5Pcreate(H5P_DATASET_XFER), "create transfer property list"));
  if (f.parallel()) check(H5Pset_dxpl_mpio(p, H5FD_MPIO_COLLECTIVE), "set collective transfer");
  return p;
}

Handle new_attr(hid_t obj, const std::string& name, hid_t type, hid_t space) {
  if (H5Aexists(obj, name.c_str()) > 0) check_all(H5Adelete(obj, name.c_str()), "replace attribute " + where(obj, name), obj);
  const hid_t a = H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
  Handle h(a);  // closed if another rank failed
  check_id_all(a, "create attribute " + quote(name) + " on " + name_of(obj), obj);
  return h;
}

std::size_t max_len(const std::vector<std::string>& v) {
  std::size_t n = 0;
  for (const auto& s : v) n = std::max(n, s.size());
  return n;
}

std::vector<char> pack_strings(const std::vector<std::string>& v, std::size_t width) {
  std::vector<char> buf(v.size() * width, '\0');
  for (std::size_t i = 0; i < v.size(); ++i) std::memcpy(buf.data() + i * width, v[i].data(), v[i].size());
  return buf;
}

std::vector<std::string> read_string_buffer(hid_t obj, hid_t file_type, std::size_t n, bool is_attr,
                                            const std::string& what) {
  std::vector<std::string> out;
  if (H5Tis_variable_str(file_type) > 0) {
    Handle mt(check_id(H5Tcopy(H5T_C_S1), "copy string type"));
    check(H5Tset_size(mt, H5T_VARIABLE), "set string size");
    check(H5Tset_cset(mt, H5Tget_cset(file_type)), "set string character set");  // no ASCII <-> UTF-8 conversion
    std::vector<char*> ptrs(n, nullptr);
    if (n) {
      const herr_t e = is_attr ? H5Aread(obj, mt, ptrs.data()) : H5Dread(obj, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data());
      check(e, "read " + what);
    }
    for (char* p : ptrs) out.emplace_back(p ? p : "");
    if (n) {
      Handle sp(is_attr ? H5Aget_space(obj) : H5Dget_space(obj));
      H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, ptrs.data());
    }
    return out;
  }
  const std::size_t width = H5Tget_size(file_type);
  Handle mt(check_id(H5Tcopy(H5T_C_S1), "copy string type"));
  check(H5Tset_size(mt, width), "set string size");
  check(H5Tset_strpad(mt, H5Tget_strpad(file_type)), "set string padding");
  check(H5Tset_cset(mt, H5Tget_cset(file_type)), "set string character set");
  std::vector<char> buf(n * width + 1, '\0');
  if (n) {
    const herr_t e = is_attr ? H5Aread(obj, mt, buf.data()) : H5Dread(obj, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data());
    check(e, "read " + what);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const char* p = buf.data() + i * width;
    out.emplace_back(p, strnlen(p, width));
  }
  return out;
}

std::size_t npoints(hid_t space) {
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  return n < 0 ? 0 : static_cast<std::size_t>(n);
}

std::string fmt_double(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

}  // namespace

void Handle::reset() noexcept {
  if (id_ < 0) return;
  switch (H5Iget_type(id_)) {
    case H5I_FILE: H5Fclose(id_); break;
    case H5I_GROUP: H5Gclose(id_); break;
    case H5I_DATASET: H5Dclose(id_); break;
    case H5I_DATASPACE: H5Sclose(id_); break;
    case H5I_DATATYPE: H5Tclose(id_); break;
    case H5I_ATTR: H5Aclose(id_); break;
    case H5I_GENPROP_LST: H5Pclose(id_); break;
    default: break;
  }
  id_ = H5I_INVALID_HID;
}

static void forget_parallel(hid_t id) {
  auto& files = parallel_files();
  files.erase(std::remove_if(files.begin(), files.end(), [&](const auto& f) { return f.first == id; }), files.end());
}

void quiet_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

// ------------------------------------------------------------------ File
File File::create(const std::string& path, MPI_Comm comm, std::size_t user_block) {
  quiet_errors();
  File f;
  MPI_Comm_rank(comm, &f.rank_);
  MPI_Comm_size(comm, &f.size_);
  f.parallel_ = true;
  f.comm_ = comm;
  f.path_ = path;
  Handle fapl(check_id(H5Pcreate(H5P_FILE_ACCESS), "create file access property list"));
  check(H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL), "select the MPI-IO driver");
  // Metadata reads and writes collectively (fewer small requests on parallel file systems).
  H5Pset_all_coll_metadata_ops(fapl, 1);
  H5Pset_coll_metadata_write(fapl, 1);
  Handle fcpl(check_id(H5Pcreate(H5P_FILE_CREATE), "create file creation property list"));
  if (user_block > 0) check(H5Pset_userblock(fcpl, static_cast<hsize_t>(user_block)), "set the user block's size");
  const hid_t id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl, fapl);
  if (id >= 0) {
    f.h_ = Handle(id);
    parallel_files().emplace_back(id, comm);
  }
  f.agree(id < 0 ? "HDF5: cannot create file " + quote(path) : std::string());
  return f;
}

void File::agree(const std::string& local_error) const {
  agree_on(parallel_ && size_ > 1 ? comm_ : MPI_COMM_NULL, local_error);
}

File File::create_serial(const std::string& path) {
  quiet_errors();
  File f;
  f.path_ = path;
  const hid_t id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (id < 0) throw Error("HDF5: cannot create file " + quote(path));
  f.h_ = Handle(id);
  return f;
}

File File::open_read(const std::string& path) {
  quiet_errors();
  // Checked before HDF5 sees it (its MPI-IO layer prints pages of noise for a directory).
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw Error(quote(path) + " is " + (S_ISDIR(st.st_mode) ? "a directory" : "not a regular file") +
                ", not an HDF5 file");
  File f;
  f.path_ = path;
  const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (id < 0) throw Error("cannot open " + quote(path) + " as an HDF5 file (missing, unreadable or not HDF5)");
  f.h_ = Handle(id);
  return f;
}

void File::close() {
  if (!h_.valid()) return;
  // Flush first, while the file stays open: a failed H5Fclose leaves HDF5 1.10 with a dangling
  // file (MPI_Finalize crashes on it), a failed flush leaves an open file that the error path
  // can close (SafeOutput::detach, close_quietly).
  // HDF5 1.10 cannot fail a parallel flush collectively: when one rank's metadata write hits a
  // full disk inside H5Fflush, the ranks leave for different barriers and wait forever
  // (measured: 2 ranks, 764 KiB free for a 780 KiB file, cli.full_disk). So the space the flush
  // may need (the metadata cache, an upper bound of what it writes, plus 64 KiB for file-space
  // allocation) is checked first and agreed over all ranks.
  if (parallel_ && size_ > 1) {
    std::string problem;
    std::size_t max_size = 0, min_clean = 0, cur_size = 0;
    int entries = 0;
    const auto slash = path_.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path_.substr(0, slash));
    struct statvfs sv {};
    if (rank_ == 0 && H5Fget_mdc_size(h_.id(), &max_size, &min_clean, &cur_size, &entries) >= 0 &&
        statvfs(dir.c_str(), &sv) == 0) {
      const unsigned long long free_bytes = static_cast<unsigned long long>(sv.f_bavail) * sv.f_frsize;
      const unsigned long long need = static_cast<unsigned long long>(cur_size) + 65536ULL;
      if (free_bytes < need)
        problem = "HDF5: cannot write file " + quote(path_) + ": " + std::to_string(free_bytes) +
                  " bytes free, its metadata needs up to " + std::to_string(need) + " (a full disk)";
    }
    agree(problem);
  }
  const herr_t f = H5Fflush(h_.id(), H5F_SCOPE_GLOBAL);
  agree(f < 0 ? "HDF5: cannot write file " + quote(path_) + " (a write error or a full disk)" : std::string());
  const hid_t id = h_.release();
  forget_parallel(id);
  const herr_t e = H5Fclose(id);
  agree(e < 0 ? "HDF5: cannot close file " + quote(path_) + " (a write error or a full disk)" : std::string());
}

void File::close_quietly() noexcept {
  if (!h_.valid()) return;
  const hid_t id = h_.release();
  forget_parallel(id);
  // After a failed close the identifier must not be touched again (HDF5 1.10 has freed it).
  H5Fclose(id);
}

// ------------------------------------------------------------------ groups and links
bool exists(hid_t loc, const std::string& path) {
  if (path.empty() || path == "/") return true;
  std::string cur;
  std::size_t pos = 0;
  if (path[0] == '/') {
    cur = "/";
    pos = 1;
  }
  while (pos <= path.size()) {
    const std::size_t next = path.find('/', pos);
    const std::string part = path.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    if (!part.empty()) {
      cur += (cur.empty() || cur.back() == '/') ? part : "/" + part;
      if (H5Lexists(loc, cur.c_str(), H5P_DEFAULT) <= 0) return false;
      if (H5Oexists_by_name(loc, cur.c_str(), H5P_DEFAULT) <= 0) return false;
    }
    if (next == std::string::npos) break;
    pos = next + 1;
  }
  return true;
}

Handle create_group(hid_t loc, const std::string& name) {
  if (exists(loc, name)) return open_group(loc, name);
  Handle lcpl = lcpl_with_parents();
  Handle g(H5Gcreate2(loc, name.c_str(), lcpl, H5P_DEFAULT, H5P_DEFAULT));
  check_id_all(g.id(), "create group " + where(loc, name), loc);
  return g;
}

Handle open_group(hid_t loc, const std::string& name) {
  return Handle(check_id(H5Gopen2(loc, name.c_str(), H5P_DEFAULT), "open group " + where(loc, name)));
}

Handle open_dataset(hid_t loc, const std::string& name) {
  return Handle(check_id(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), "open dataset " + where(loc, name)));
}

namespace {
herr_t collect_name(hid_t, const char* name, const H5L_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->emplace_back(name);
  return 0;
}
}  // namespace

std::vector<std::string> list(hid_t group) {
  std::vector<std::string> out;
  hsize_t idx = 0;
  check(H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_name, &out), "list group " + name_of(group));
  return out;
}

bool is_group(hid_t loc, const std::string& name) {
  if (!exists(loc, name)) return false;
  H5O_info_t info;
  if (H5Oget_info_by_name2(loc, name.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0) return false;
  return info.type == H5O_TYPE_GROUP;
}

void hard_link(hid_t loc, const std::string& target, const std::string& link_name) {
  check_all(H5Lcreate_hard(loc, target.c_str(), loc, link_name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
            "link " + link_name + " -> " + target, loc);
}

void copy(hid_t src_loc, const std::string& src_name, hid_t dst_loc, const std::string& dst_name) {
  Handle lcpl = lcpl_with_parents();
  check(H5Ocopy(src_loc, src_name.c_str(), dst_loc, dst_name.c_str(), H5P_DEFAULT, lcpl),
        "copy " + where(src_loc, src_name) + " to " + where(dst_loc, dst_name));
}

// ------------------------------------------------------------------ attributes
Handle string_type(std::size_t len) {
  Handle t(check_id(H5Tcopy(H5T_C_S1), "copy string type"));
  check(H5Tset_size(t, len + 1), "set string size");
  check(H5Tset_strpad(t, H5T_STR_NULLTERM), "set string padding");
  return t;
}

// String attributes are variable-length UTF-8 strings, as H5MD and h5py expect (h5py reads them
// as str; fixed-length ones come back as bytes). Datasets of strings stay fixed-length: parallel
// HDF5 cannot write variable-length data collectively.
Handle vlen_utf8_type() {
  Handle t(check_id(H5Tcopy(H5T_C_S1), "copy string type"));
  check(H5Tset_size(t, H5T_VARIABLE), "set string size");
  check(H5Tset_cset(t, H5T_CSET_UTF8), "set string character set");
  return t;
}

void attr(hid_t obj, const std::string& name, const std::string& value) {
  Handle t = vlen_utf8_type();
  Handle sp = scalar_space();
  Handle a = new_attr(obj, name, t, sp);
  const char* p = value.c_str();
  check_all(H5Awrite(a, t, &p), "write attribute " + where(obj, name), obj);
}

void attr(hid_t obj, const std::string& name, const char* value) { attr(obj, name, std::string(value)); }

void attr_ascii(hid_t obj, const std::string& name, const std::string& value) {
  for (char c : value)
    if (static_cast<unsigned char>(c) > 127) throw std::invalid_argument("attribute " + name + " " + quote(value) + " is not ASCII");
  Handle t = string_type(value.size());  // H5T_CSET_ASCII by default
  Handle sp = scalar_space();
  Handle a = new_attr(obj, name, t, sp);
  check_all(H5Awrite(a, t, value.c_str()), "write attribute " + where(obj, name), obj);
}

void attr(hid_t obj, const std::string& name, double value) {
  Handle sp = scalar_space();
  Handle a = new_attr(obj, name, H5T_IEEE_F64LE, sp);
  check_all(H5Awrite(a, H5T_NATIVE_DOUBLE, &value), "write attribute " + where(obj, name), obj);
}

void attr(hid_t obj, const std::string& name, std::int64_t value) {
  Handle sp = scalar_space();
  Handle a = new_attr(obj, name, H5T_STD_I64LE, sp);
  check_all(H5Awrite(a, H5T_NATIVE_INT64, &value), "write attribute " + where(obj, name), obj);
}

void attr(hid_t obj, const std::string& name, int value) { attr(obj, name, static_cast<std::int64_t>(value)); }

void attr(hid_t obj, const std::string& name, const std::vector<double>& values) {
  Handle sp = simple_space({values.size()});
  Handle a = new_attr(obj, name, H5T_IEEE_F64LE, sp);
  if (!values.empty()) check_all(H5Awrite(a, H5T_NATIVE_DOUBLE, values.data()), "write attribute " + where(obj, name), obj);
}

void attr(hid_t obj, const std::string& name, const std::vector<std::int64_t>& values) {
  Handle sp = simple_space({values.size()});
  Handle a = new_attr(obj, name, H5T_STD_I64LE, sp);
  if (!values.empty()) check_all(H5Awrite(a, H5T_NATIVE_INT64, values.data()), "write attribute " + where(obj, name), obj);
}

void attr(hid_t obj, const std::string& name, const std::vector<std::string>& values) {
  Handle t = vlen_utf8_type();
  Handle sp = simple_space({values.size()});
  Handle a = new_attr(obj, name, t, sp);
  std::vector<const char*> ptrs;
  for (const auto& v : values) ptrs.push_back(v.c_str());
  if (!values.empty()) check_all(H5Awrite(a, t, ptrs.data()), "write attribute " + where(obj, name), obj);
}

bool has_attr(hid_t obj, const std::string& name) { return H5Aexists(obj, name.c_str()) > 0; }

namespace {
herr_t collect_attr(hid_t, const char* name, const H5A_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->emplace_back(name);
  return 0;
}
Handle open_attr(hid_t obj, const std::string& name) {
  if (H5Aexists(obj, name.c_str()) <= 0) throw Error("HDF5: attribute " + quote(name) + " missing on " + name_of(obj));
  return Handle(check_id(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "open attribute " + where(obj, name)));
}
}  // namespace

std::vector<std::string> attr_names(hid_t obj) {
  std::vector<std::string> out;
  hsize_t idx = 0;
  check(H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_attr, &out), "list attributes of " + name_of(obj));
  return out;
}

std::vector<std::string> attr_strings(hid_t obj, const std::string& name) {
  Handle a = open_attr(obj, name);
  Handle t(H5Aget_type(a));
  if (H5Tget_class(t) != H5T_STRING) throw Error("HDF5: attribute " + where(obj, name) + " is not a string");
  Handle sp(H5Aget_space(a));
  return read_string_buffer(a, t, npoints(sp), true, "attribute " + where(obj, name));
}

std::string attr_string(hid_t obj, const std::string& name) {
  const auto v = attr_strings(obj, name);
  return v.empty() ? std::string() : v[0];
}

std::vector<double> attr_doubles(hid_t obj, const std::string& name) {
  Handle a = open_attr(obj, name);
  Handle sp(H5Aget_space(a));
  std::vector<double> v(npoints(sp));
  if (!v.empty()) check(H5Aread(a, H5T_NATIVE_DOUBLE, v.data()), "read attribute " + where(obj, name));
  return v;
}

double attr_double(hid_t obj, const std::string& name) {
  const auto v = attr_doubles(obj, name);
  if (v.empty()) throw Error("HDF5: attribute " + where(obj, name) + " is empty");
  return v[0];
}

std::int64_t attr_int(hid_t obj, const std::string& name) {
  Handle a = open_attr(obj, name);
  Handle sp(H5Aget_space(a));
  std::vector<std::int64_t> v(std::max<std::size_t>(npoints(sp), 1), 0);
  check(H5Aread(a, H5T_NATIVE_INT64, v.data()), "read attribute " + where(obj, name));
  return v[0];  // the first element of an array attribute
}

std::string attr_text(hid_t obj, const std::string& name) {
  Handle a = open_attr(obj, name);
  Handle t(H5Aget_type(a));
  Handle sp(H5Aget_space(a));
  const std::size_t n = npoints(sp);
  std::string out;
  switch (H5Tget_class(t)) {
    case H5T_STRING: {
      const auto v = read_string_buffer(a, t, n, true, "attribute " + where(obj, name));
      for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
      return out;
    }
    case H5T_INTEGER: {
      std::vector<std::int64_t> v(n);
      if (n) check(H5Aread(a, H5T_NATIVE_INT64, v.data()), "read attribute " + where(obj, name));
      for (std::size_t i = 0; i < n; ++i) out += (i ? ", " : "") + std::to_string(v[i]);
      return out;
    }
    case H5T_FLOAT: {
      std::vector<double> v(n);
      if (n) check(H5Aread(a, H5T_NATIVE_DOUBLE, v.data()), "read attribute " + where(obj, name));
      for (std::size_t i = 0; i < n; ++i) out += (i ? ", " : "") + fmt_double(v[i]);
      return out;
    }
    default: return "(unsupported type)";
  }
}

// ------------------------------------------------------------------ small 1-D datasets
namespace {
template <class T>
Handle write_numeric(const File& f, hid_t loc, const std::string& name, const std::vector<T>& v, hid_t file_type,
                     hid_t mem_type) {
  Handle sp = simple_space({v.size()});
  Handle lcpl = lcpl_with_parents();
  Handle dcpl = no_fill_dcpl();
  Handle d(H5Dcreate2(loc, name.c_str(), file_type, sp, lcpl, dcpl, H5P_DEFAULT));
  check_id_all(d.id(), "create dataset " + where(loc, name), loc);
  const herr_t e = f.writer() && !v.empty() ? H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) : 0;
  f.agree(e < 0 ? "HDF5: cannot write dataset " + where(loc, name) : std::string());
  return d;
}
}  // namespace

Handle write_vector(const File& f, hid_t loc, const std::string& name, const std::vector<double>& v) {
  return write_numeric(f, loc, name, v, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE);
}

Handle write_vector(const File& f, hid_t loc, const std::string& name, const std::vector<std::int64_t>& v) {
  return write_numeric(f, loc, name, v, H5T_STD_I64LE, H5T_NATIVE_INT64);
}

Handle write_vector(const File& f, hid_t loc, const std::string& name, const std::vector<std::string>& v) {
  const std::size_t w = max_len(v) + 1;
  Handle t = string_type(w - 1);
  Handle sp = simple_space({v.size()});
  Handle lcpl = lcpl_with_parents();
  Handle dcpl = no_fill_dcpl();
  Handle d(H5Dcreate2(loc, name.c_str(), t, sp, lcpl, dcpl, H5P_DEFAULT));
  check_id_all(d.id(), "create dataset " + where(loc, name), loc);
  const auto buf = pack_strings(v, w);
  const herr_t e = f.writer() && !v.empty() ? H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) : 0;
  f.agree(e < 0 ? "HDF5: cannot write dataset " + where(loc, name) : std::string());
  return d;
}

Kind dataset_kind(hid_t dset) {
  Handle t(H5Dget_type(dset));
  switch (H5Tget_class(t)) {
    case H5T_INTEGER: return Kind::Integer;
    case H5T_FLOAT: return Kind::Real;
    case H5T_STRING: return Kind::String;
    default: return Kind::Other;
  }
}

std::vector<std::size_t> dataset_shape(hid_t dset) {
  Handle sp(H5Dget_space(dset));
  const int nd = H5Sget_simple_extent_ndims(sp);
  std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(nd, 0)));
  if (nd > 0) H5Sget_simple_extent_dims(sp, dims.data(), nullptr);
  return {dims.begin(), dims.end()};
}

std::vector<double> read_doubles(hid_t loc, const std::string& name) {
  Handle d = open_dataset(loc, name);
  Handle sp(H5Dget_space(d));
  std::vector<double> v(npoints(sp));
  if (!v.empty()) check(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), "read " + where(loc, name));
  return v;
}

std::vector<std::int64_t> read_ints(hid_t loc, const std::string& name) {
  Handle d = open_dataset(loc, name);
  Handle sp(H5Dget_space(d));
  std::vector<std::int64_t> v(npoints(sp));
  if (!v.empty()) check(H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), "read " + where(loc, name));
  return v;
}

std::vector<std::string> read_strings(hid_t loc, const std::string& name) {
  Handle d = open_dataset(loc, name);
  Handle t(H5Dget_type(d));
  if (H5Tget_class(t) != H5T_STRING) throw Error("HDF5: dataset " + where(loc, name) + " does not hold strings");
  Handle sp(H5Dget_space(d));
  return read_string_buffer(d, t, npoints(sp), false, "dataset " + where(loc, name));
}

// ------------------------------------------------------------------ distributed arrays
void write_rows(const File& f, hid_t loc, const std::string& name, std::size_t global_rows, std::size_t cols,
                std::size_t row_offset, std::size_t local_rows, const double* data) {
  Handle fsp = simple_space({global_rows, cols});
  Handle lcpl = lcpl_with_parents();
  Handle dcpl = no_fill_dcpl();
  Handle d(H5Dcreate2(loc, name.c_str(), H5T_IEEE_F64LE, fsp, lcpl, dcpl, H5P_DEFAULT));
  check_id_all(d.id(), "create dataset " + where(loc, name), loc);
  Handle msp = simple_space({std::max<std::size_t>(local_rows * cols, 1)});
  if (local_rows == 0 || cols == 0) {
    H5Sselect_none(fsp);
    H5Sselect_none(msp);
  } else {
    const hsize_t start[2] = {row_offset, 0}, count[2] = {local_rows, cols};
    check(H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, nullptr, count, nullptr), "select rows of " + where(loc, name));
  }
  Handle xfer = collective_xfer(f);
  static const double dummy = 0.0;
  const herr_t e = H5Dwrite(d, H5T_NATIVE_DOUBLE, msp, fsp, xfer, local_rows ? data : &dummy);
  f.agree(e < 0 ? "HDF5: cannot write " + where(loc, name) : std::string());
}

std::vector<double> read_rows(hid_t loc, const std::string& name, std::size_t row_offset, std::size_t rows,
                              std::size_t* cols_out) {
  Handle d = open_dataset(loc, name);
  const auto shape = dataset_shape(d);
  if (shape.size() != 2) throw Error("HDF5: dataset " + where(loc, name) + " is not a [rows][cols] array");
  if (row_offset + rows > shape[0])
    throw Error("HDF5: dataset " + where(loc, name) + " has " + std::to_string(shape[0]) + " rows; asked for rows [" +
                std::to_string(row_offset) + ", " + std::to_string(row_offset + rows) + ")");
  const std::size_t cols = shape[1];
  if (cols_out) *cols_out = cols;
  std::vector<double> out(rows * cols);
  if (out.empty()) return out;
  Handle fsp(H5Dget_space(d));
  const hsize_t start[2] = {row_offset, 0}, count[2] = {rows, cols};
  check(H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, nullptr, count, nullptr), "select rows of " + where(loc, name));
  Handle msp = simple_space({out.size()});
  check(H5Dread(d, H5T_NATIVE_DOUBLE, msp, fsp, H5P_DEFAULT, out.data()), "read " + where(loc, name));
  return out;
}

FrameWriter::FrameWriter(const File& f, hid_t loc, const std::string& name, std::size_t global_rows, std::size_t cols)
    : file_(&f), rows_(global_rows), cols_(cols) {
  if (rows_ == 0 || cols_ == 0) throw Error("HDF5: frame dataset " + where(loc, name) + " with zero rows or columns");
  const std::vector<hsize_t> dims = {0, rows_, cols_}, maxdims = {H5S_UNLIMITED, rows_, cols_};
  Handle sp = simple_space(dims, &maxdims);
  Handle dcpl = no_fill_dcpl();
  // Chunks of one frame, at most ~1 MiB each.
  const std::size_t chunk_rows = std::clamp<std::size_t>(131072 / cols_, 1, rows_);
  const hsize_t chunk[3] = {1, chunk_rows, cols_};
  check(H5Pset_chunk(dcpl, 3, chunk), "set chunking");
  Handle lcpl = lcpl_with_parents();
  dset_ = Handle(H5Dcreate2(loc, name.c_str(), H5T_IEEE_F64LE, sp, lcpl, dcpl, H5P_DEFAULT));
  check_id_all(dset_.id(), "create dataset " + where(loc, name), loc);
}

void FrameWriter::append(std::size_t row_offset, std::size_t local_rows, const double* data) {
  const hsize_t dims[3] = {frames_ + 1, rows_, cols_};
  check_all(H5Dset_extent(dset_, dims), "extend frame dataset " + name_of(dset_), dset_);
  Handle fsp(check_id(H5Dget_space(dset_), "get dataspace"));
  Handle msp = simple_space({std::max<std::size_t>(local_rows * cols_, 1)});
  if (local_rows == 0) {
    H5Sselect_none(fsp);
    H5Sselect_none(msp);
  } else {
    const hsize_t start[3] = {frames_, row_offset, 0}, count[3] = {1, local_rows, cols_};
    check(H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, nullptr, count, nullptr), "select frame");
  }
  Handle xfer = collective_xfer(*file_);
  static const double dummy = 0.0;
  const herr_t e = H5Dwrite(dset_, H5T_NATIVE_DOUBLE, msp, fsp, xfer, local_rows ? data : &dummy);
  file_->agree(e < 0 ? "HDF5: cannot write frame of " + name_of(dset_) : std::string());
  ++frames_;
}

}  // namespace lie::h5

#pragma once
// Eigen's LU with partial pivoting (Eigen::PartialPivLU, Eigen 3.4) with stop points. The dense
// solves of `lgvi` take seconds to minutes for large n (3n x 3n; n = 2000 spheres: 6000 x 6000),
// longer than a batch system waits between SIGTERM and SIGKILL (Open MPI's mpirun: 1 s), so the
// factorisation calls stop_point() (core/stop.hpp) between pieces of well under a second.
//
// The algorithm is Eigen's own (Eigen/src/LU/PartialPivLU.h, partial_lu_impl::blocked_lu):
// right-looking, column blocks of bs = clamp(size/8 rounded down to 16, 8, 256); per block the
// panel is factorised by Eigen's recursive routine, the row swaps are applied left and right,
// A12 <- L11^-1 A12, A22 <- A22 - A21 A12. The only change: the update of A22 is done in slices
// of columns, with a stop point between slices. Every entry of A22 must then get the same
// operands in the same order, and the micro-kernel that computes it depends on the blocking of
// Eigen's GEMM (Eigen/src/Core/products/GeneralBlockPanelKernel.h, 3.4): the depth blocking
// depends on the depth only (kept); columns go to OpenMP threads and to the register blocks in
// multiples of 4 from the left (kept: slices are multiples of 16 wide, the remainder of the
// matrix stays in the last slice); the rows are blocked by the single-threaded heuristic only
// when the product has at most nc <= 1572864 / (16 depth) columns, so every slice is wider than
// that (slice_cols), and a matrix that would give a narrower slice is updated in one piece. So
// the factors are bitwise those of PartialPivLU (tests/unit/test_stoppable_lu.cpp, 1 and 2
// threads). The solve is PartialPivLU's.
#include <Eigen/LU>
#include <algorithm>

#include "core/stop.hpp"

namespace lie {

class StoppableLU : public Eigen::PartialPivLU<Eigen::MatrixXd> {
 public:
  /// Columns per slice of the trailing update for a block of `depth` columns: above Eigen's
  /// largest column block nc <= 1572864 / (2 depth sizeof(double)), a multiple of 16.
  static Eigen::Index slice_cols(Eigen::Index depth) { return (98304 / depth / 16 + 2) * 16; }

  /// Factorises the square matrix `a` as PartialPivLU::compute(a) does, with stop points
  /// (StopInStep; this object is then not initialised).
  StoppableLU& factor(const Eigen::MatrixXd& a) {
    m_isInitialized = false;
    m_lu = a;
    // PartialPivLU::compute(), with blocked_lu below instead of internal::partial_lu_inplace.
    m_l1_norm = m_lu.cols() > 0 ? m_lu.cwiseAbs().colwise().sum().maxCoeff() : 0.0;
    const Eigen::Index size = m_lu.rows();
    m_rowsTranspositions.resize(size);
    int nb_transpositions = 0;
    if (size > 0) blocked_lu(size, nb_transpositions);
    m_det_p = (nb_transpositions % 2) ? -1 : 1;
    m_p = m_rowsTranspositions;
    m_isInitialized = true;
    return *this;
  }

 private:
  // partial_lu_impl<double, ColMajor, int>::blocked_lu(size, size, ...) of Eigen 3.4 with the
  // default block limit 256; the panels go to Eigen's routine itself.
  void blocked_lu(Eigen::Index size, int& nb_transpositions) {
    using Eigen::Index;
    using Impl = Eigen::internal::partial_lu_impl<double, Eigen::ColMajor, int>;
    using BlockType = Eigen::Ref<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>>;
    const Index rows = size, luStride = m_lu.outerStride();
    int* row_transpositions = &m_rowsTranspositions.coeffRef(0);
    if (size <= Impl::UnBlockedBound) {
      Impl::blocked_lu(rows, size, m_lu.data(), luStride, row_transpositions, nb_transpositions);
      return;
    }
    typename Impl::MatrixTypeRef lu = Impl::MatrixType::Map(m_lu.data(), rows, size, Eigen::OuterStride<>(luStride));
    Index blockSize = size / 8;
    blockSize = (blockSize / 16) * 16;
    blockSize = (std::min)((std::max)(blockSize, Index(8)), Index(256));
    nb_transpositions = 0;
    for (Index k = 0; k < size; k += blockSize) {
      stop_point();
      const Index bs = (std::min)(size - k, blockSize);
      const Index trows = rows - k - bs;
      const Index tsize = size - k - bs;
      BlockType A_0 = lu.block(0, 0, rows, k);
      BlockType A_2 = lu.block(0, k + bs, rows, tsize);
      BlockType A11 = lu.block(k, k, bs, bs);
      BlockType A12 = lu.block(k, k + bs, bs, tsize);
      BlockType A21 = lu.block(k + bs, k, trows, bs);
      int nb_transpositions_in_panel;
      Impl::blocked_lu(trows + bs, bs, &lu.coeffRef(k, k), luStride, row_transpositions + k, nb_transpositions_in_panel,
                       16);
      nb_transpositions += nb_transpositions_in_panel;
      for (Index i = k; i < k + bs; ++i) {
        const Index piv = (row_transpositions[i] += static_cast<int>(k));
        A_0.row(i).swap(A_0.row(piv));
      }
      if (trows) {
        for (Index i = k; i < k + bs; ++i) A_2.row(i).swap(A_2.row(row_transpositions[i]));
        A11.template triangularView<Eigen::UnitLower>().solveInPlace(A12);
        // Slices of `width` columns, the last one up to twice as wide (the matrix's remainder).
        const Index width = slice_cols(bs);
        for (Index c = 0; c < tsize;) {
          if (c > 0) stop_point();
          const Index w = tsize - c < 2 * width ? tsize - c : width;
          BlockType A22 = lu.block(k + bs, k + bs + c, trows, w);
          BlockType A12c = lu.block(k, k + bs + c, bs, w);
          A22.noalias() -= A21 * A12c;
          c += w;
        }
      }
    }
  }
};

}  // namespace lie

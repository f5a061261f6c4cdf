! SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
! Empty schedule(static) loops (no chunk size: OpenMPIRBuilder's single
! range) of every integer kind, with literal and run-time bounds, then one
! loop of 10 iterations. For an empty loop the range's upper bound is
! count - 1 = all ones with lower bound 0, so lb <= ub holds although
! nothing runs: a tool must be told of no chunk. 3 threads.
module er
  implicit none
  integer(8) :: s = 0
contains
  subroutine orphan(lo, hi)
    integer(2), intent(in) :: lo, hi
    integer(2) :: i
    !$omp do schedule(static) reduction(+:s)
    do i = lo, hi, 2_2
      s = s + i
    end do
    !$omp end do
  end subroutine
end module

program empty_range
  use er
  implicit none
  integer(1) :: i1
  integer(2) :: i2
  integer(4) :: i4, n
  integer(8) :: i8
  n = 0
  !$omp parallel num_threads(3) reduction(+:s)
  !$omp do schedule(static)
  do i1 = 5_1, 4_1
    s = s + i1
  end do
  !$omp end do
  !$omp do
  do i2 = 44_2, 43_2, 2_2
    s = s + i2
  end do
  !$omp end do
  !$omp do schedule(static)
  do i4 = 1, n
    s = s + i4
  end do
  !$omp end do
  !$omp do schedule(static)
  do i8 = 10_8, 1_8
    s = s + i8
  end do
  !$omp end do
  !$omp do schedule(static)
  do i4 = -1, -10, -1
    s = s + 0 * i4
  end do
  !$omp end do
  call orphan(7_2, 6_2)
  !$omp end parallel
  print '(a,i0)', 'sum ', s
end program

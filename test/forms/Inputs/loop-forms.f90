! SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
! Every worksharing form flang emits, one "! FORM: <name>" entry each, for
! docs/loop-forms.md's Fortran table (test/forms/loop_forms.py --lang
! fortran). "! NO REMARK: <why>" marks a form with no runtime loop call,
! about which the plugin must say nothing.
module formsmod
  implicit none
contains
  ! FORM: orphaned `do schedule(static, N)` in a module procedure
  subroutine modproc(a, n)
    integer :: n, i
    real(8) :: a(n)
    !$omp do schedule(static, 4)
    do i = 1, n
      a(i) = a(i) + i
    end do
  end subroutine
end module

! FORM: orphaned `do schedule(static, N)` in an external subroutine
subroutine ext(a, n)
  integer :: n, i
  real(8) :: a(n)
  !$omp do schedule(static, 4)
  do i = 1, n
    a(i) = a(i) + i
  end do
end subroutine

! FORM: `!$omp declare target` subroutine (host fallback)
subroutine tgt(a, n)
  !$omp declare target
  integer :: n, i
  real(8) :: a(n)
  !$omp parallel do schedule(static, 4)
  do i = 1, n
    a(i) = a(i) + i
  end do
end subroutine

subroutine forms(a, n, m, c)
  use formsmod
  implicit none
  integer :: n, m, c, i, j, k
  real(8) :: a(n), b(n,n), s, r(4)
  integer(1) :: i1
  integer(2) :: i2
  integer(8) :: i8
  type :: pair
    integer(8) :: lo, hi
  end type
  type(pair) :: p
  !$omp declare reduction(pmax: pair: omp_out = pair(min(omp_out%lo, omp_in%lo), max(omp_out%hi, omp_in%hi))) initializer(omp_priv = pair(huge(1_8), -huge(1_8)))
  ! FORM: `parallel do schedule(static, N)`
  !$omp parallel do schedule(static, 4)
  do i = 1, n
    a(i) = a(i) + i
  end do
  ! FORM: `do schedule(static, N)` in a parallel region, also `nowait`
  !$omp parallel
  !$omp do schedule(static, 4)
  do i = 1, n
    a(i) = a(i) + i
  end do
  !$omp do schedule(static, 2)
  do i = 1, n
    a(i) = a(i) + i
  end do
  !$omp end do nowait
  !$omp end parallel
  ! FORM: chunk size computed at run time
  !$omp parallel do schedule(static, c)
  do i = 1, n
    a(i) = a(i) + i
  end do
  ! FORM: `schedule(static)` without a chunk
  !$omp parallel do schedule(static)
  do i = 1, n
    a(i) = a(i) + i
  end do
  ! FORM: no `schedule` clause (flang's default is static)
  !$omp parallel do
  do i = 1, n
    a(i) = a(i) + i
  end do
  ! FORM: `schedule(monotonic: static, N)`
  !$omp parallel do schedule(monotonic: static, 4)
  do i = 1, n
    a(i) = a(i) + i
  end do
  ! FORM: descending loops and non-unit steps
  !$omp parallel do schedule(static, 3)
  do i = n, 1, -1
    a(i) = a(i) + i
  end do
  !$omp parallel do schedule(static, 3)
  do i = 1, n, 3
    a(i) = a(i) + i
  end do
  !$omp parallel do schedule(static, 3)
  do i = n, 1, -m
    a(i) = a(i) + i
  end do
  ! FORM: `integer(1)`, `integer(2)`, `integer(8)` loop variables
  !$omp parallel do schedule(static, 3)
  do i1 = 1_1, 100_1
    a(i1) = a(i1) + 1
  end do
  !$omp parallel do schedule(static, 3)
  do i2 = 1_2, int(n, 2)
    a(i2) = a(i2) + 1
  end do
  !$omp parallel do schedule(static, 3)
  do i8 = 1_8, int(n, 8)
    a(i8) = a(i8) + 1
  end do
  ! FORM: `collapse(2)`, `collapse(3)`
  !$omp parallel do collapse(2) schedule(static, 4)
  do j = 1, n
    do i = 1, n
      b(i, j) = i + j
    end do
  end do
  !$omp parallel do collapse(3)
  do k = 1, 2
    do j = 1, n
      do i = 1, n
        b(i, j) = b(i, j) + k
      end do
    end do
  end do
  ! FORM: `lastprivate`
  !$omp parallel do schedule(static, 2) lastprivate(k)
  do i = 1, n
    k = i
  end do
  ! FORM: `reduction` of a scalar
  s = 0
  !$omp parallel do schedule(static, 2) reduction(+:s)
  do i = 1, n
    s = s + a(i)
  end do
  ! FORM: `reduction` of an array
  r = 0
  !$omp parallel do schedule(static, 2) reduction(+:r)
  do i = 1, n
    r(mod(i, 4) + 1) = r(mod(i, 4) + 1) + a(i)
  end do
  ! FORM: user-defined `reduction` (`declare reduction` with an `initializer`)
  p = pair(huge(1_8), -huge(1_8))
  !$omp parallel do schedule(static, 2) reduction(pmax:p)
  do i = 1, n
    p%lo = min(p%lo, int(i, 8))
    p%hi = max(p%hi, int(i, 8))
  end do
  ! FORM: `ordered` (an `ordered` region in the loop body)
  !$omp parallel do schedule(static, 2) ordered
  do i = 1, n
    !$omp ordered
    a(i) = a(i) + 1
    !$omp end ordered
  end do
  ! FORM: `schedule(dynamic)`, `schedule(guided)`
  !$omp parallel do schedule(dynamic, 2)
  do i = 1, n
    a(i) = a(i) + i
  end do
  !$omp parallel do schedule(guided)
  do i = 1, n
    a(i) = a(i) + i
  end do
  ! FORM: `schedule(runtime)`, `schedule(auto)`
  !$omp parallel do schedule(runtime)
  do i = 1, n
    a(i) = a(i) + i
  end do
  !$omp parallel do schedule(auto)
  do i = 1, n
    a(i) = a(i) + i
  end do
  ! FORM: `simd` (no worksharing)
  ! NO REMARK: flang vectorizes it in place; no runtime loop call
  !$omp simd
  do i = 1, n
    a(i) = a(i) + i
  end do
  ! FORM: `do simd`, `parallel do simd`
  !$omp parallel
  !$omp do simd schedule(static, 8)
  do i = 1, n
    a(i) = a(i) + i
  end do
  !$omp end parallel
  !$omp parallel do simd schedule(static, 8)
  do i = 1, n
    a(i) = a(i) + i
  end do
  ! FORM: `workshare` of an array assignment (flang lowers it to a `do schedule(static)` loop)
  !$omp parallel
  !$omp workshare
  a = a + 1
  !$omp end workshare
  !$omp end parallel
  ! FORM: `teams distribute parallel do` on the host (flang-22 emits no distribute loop: see the notes)
  !$omp teams num_teams(2)
  !$omp distribute parallel do schedule(static, 4)
  do i = 1, n
    a(i) = a(i) + i
  end do
  !$omp end teams
  ! FORM: `taskloop`
  !$omp parallel
  !$omp single
  !$omp taskloop grainsize(4)
  do i = 1, n
    a(i) = a(i) + i
  end do
  !$omp end single
  !$omp end parallel
  ! FORM: `sections` (flang lowers it to a static loop over the sections)
  a(3) = 3
  !$omp parallel sections
  !$omp section
  a(1) = 1
  !$omp section
  a(2) = 2
  !$omp end parallel sections
  call modproc(a, n)
  call ext(a, n)
  call tgt(a, n)
end subroutine

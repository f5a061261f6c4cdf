! SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
! The static worksharing loops flang emits (docs/loop-forms.md, Fortran), at
! team sizes 1 to 4: `parallel do` and `do` in a region (also `nowait`),
! orphaned in an external subroutine and a module procedure, in a `declare
! target` routine run on the host, run-time chunk, `schedule(static)` and
! none, descending and strided loops, integer kinds 1/2/4/8, collapse(2),
! lastprivate, reductions (scalar, array, user-defined), `do simd`. Prints,
! per parallel region, the team size and each loop's trip count and chunk
! ("REGION"/"LOOP" lines, read by check_chunks.py), then what the loop
! computed.
module work
  implicit none
  integer, parameter :: maxn = 600
  integer(8) :: acc(maxn), acc2(maxn)
contains
  subroutine modproc(n, c)
    integer :: n, c, i
    !$omp do schedule(static, c)
    do i = 1, n
      acc(i) = acc(i) + 3 * i
    end do
  end subroutine
  subroutine say(t, trip, chunk)
    integer :: t, trip, chunk
    write (*, '(a,i0)') 'REGION ', t
    write (*, '(a,i0,1x,i0)') 'LOOP ', trip, chunk
    acc = 0
  end subroutine
  subroutine total(trip)
    integer :: trip, k
    integer(8) :: s
    s = 0
    do k = 1, trip
      s = s * 31 + acc(k)
    end do
    write (*, '(a,i0)') 'sum ', s
  end subroutine
end module

subroutine ext(n, c)
  use work
  integer :: n, c, i
  !$omp do schedule(static, c) nowait
  do i = 1, n
    acc(i) = acc(i) + i
  end do
  !$omp do schedule(static, c + 1)
  do i = 1, n
    acc2(i) = 2 * i
  end do
end subroutine

subroutine tgt(n, c, t)
  use work
  !$omp declare target
  integer :: n, c, t, i
  !$omp parallel do schedule(static, c) num_threads(t)
  do i = 1, n
    acc(i) = acc(i) + 5 * i
  end do
end subroutine

program loops
  use work
  implicit none
  integer :: t, c, n, i, j, k, step
  integer(1) :: i1
  integer(2) :: i2
  integer(8) :: i8, s8, r(4)
  type :: pair
    integer(8) :: lo, hi
  end type
  type(pair) :: p
  !$omp declare reduction(pmax: pair: omp_out = pair(min(omp_out%lo, omp_in%lo), max(omp_out%hi, omp_in%hi))) initializer(omp_priv = pair(huge(1_8), -huge(1_8)))
  do t = 1, 4
    do c = 1, 7, 3
      n = 37 + 2 * c
      call say(t, n, c)
      !$omp parallel do schedule(static, c) num_threads(t)
      do i = 1, n
        acc(i) = acc(i) + i * 7 + 1
      end do
      call total(n)

      write (*, '(a,i0)') 'REGION ', t
      write (*, '(a,i0,1x,i0)') 'LOOP ', n, c
      write (*, '(a,i0,1x,i0)') 'LOOP ', n, c + 2
      acc = 0
      !$omp parallel num_threads(t)
      !$omp do schedule(static, c)
      do i = 1, n
        acc(i) = acc(i) + i
      end do
      !$omp end do nowait
      !$omp do schedule(static, c + 2)
      do i = 1, n
        acc2(i) = acc2(i) + i
      end do
      !$omp end parallel
      call total(n)

      write (*, '(a,i0)') 'REGION ', t
      write (*, '(a,i0,1x,i0)') 'LOOP ', n, c
      write (*, '(a,i0,1x,i0)') 'LOOP ', n, c + 1
      write (*, '(a,i0,1x,i0)') 'LOOP ', n, c
      acc = 0
      !$omp parallel num_threads(t)
      call ext(n, c)
      call modproc(n, c)
      !$omp end parallel
      call total(n)

      call say(t, n, c)
      call tgt(n, c, t)
      call total(n)

      ! Descending, strided, run-time negative step.
      call say(t, (n + 2) / 3, c)
      !$omp parallel do schedule(static, c) num_threads(t)
      do i = n, 1, -3
        acc((n - i) / 3 + 1) = acc((n - i) / 3 + 1) + i
      end do
      call total((n + 2) / 3)
      step = c + 1
      call say(t, (n - 4) / step + 1, 2)
      !$omp parallel do schedule(static, 2) num_threads(t)
      do i = 5, n, step
        acc((i - 5) / step + 1) = acc((i - 5) / step + 1) + i
      end do
      call total((n - 4) / step + 1)
      step = -c
      call say(t, (n - 1) / c + 1, 3)
      !$omp parallel do schedule(static, 3) num_threads(t)
      do i = n, 1, step
        acc((n - i) / c + 1) = acc((n - i) / c + 1) + i
      end do
      call total((n - 1) / c + 1)

      ! Integer kinds 1, 2, 8.
      call say(t, 100, c)
      !$omp parallel do schedule(static, c) num_threads(t)
      do i1 = -50_1, 49_1
        acc(i1 + 51) = acc(i1 + 51) + i1
      end do
      call total(100)
      call say(t, n, c)
      !$omp parallel do schedule(static, c) num_threads(t)
      do i2 = int(n, 2), 1_2, -1_2
        acc(i2) = acc(i2) + 2 * i2
      end do
      call total(n)
      call say(t, n, c)
      !$omp parallel do schedule(static, c) num_threads(t)
      do i8 = 3000000000_8, 3000000000_8 + n - 1
        acc(i8 - 2999999999_8) = acc(i8 - 2999999999_8) + mod(i8, 1000_8)
      end do
      call total(n)

      ! schedule(static) and no schedule clause: one chunk per thread.
      call say(t, n, 0)
      !$omp parallel do schedule(static) num_threads(t)
      do i = 1, n
        acc(i) = acc(i) + 11 * i
      end do
      call total(n)
      call say(t, n, 0)
      !$omp parallel do num_threads(t)
      do i = 1, n
        acc(i) = acc(i) + 13 * i
      end do
      call total(n)

      ! collapse(2): 6 x n iterations.
      call say(t, 6 * n, c)
      !$omp parallel do collapse(2) schedule(static, c) num_threads(t)
      do j = 1, 6
        do i = 1, n
          acc((j - 1) * n + i) = acc((j - 1) * n + i) + j * 1000 + i
        end do
      end do
      call total(6 * n)

      ! lastprivate, reductions, do simd.
      call say(t, n, c)
      k = 0
      !$omp parallel do schedule(static, c) lastprivate(k) num_threads(t)
      do i = 1, n
        k = i * 2
        acc(i) = k
      end do
      write (*, '(a,i0)') 'lastprivate ', k
      call say(t, n, c)
      s8 = 0
      !$omp parallel do schedule(static, c) reduction(+:s8) num_threads(t)
      do i = 1, n
        s8 = s8 + i * i
      end do
      write (*, '(a,i0)') 'reduction ', s8
      call say(t, n, c)
      r = 0
      !$omp parallel do schedule(static, c) reduction(+:r) num_threads(t)
      do i = 1, n
        r(mod(i, 4) + 1) = r(mod(i, 4) + 1) + i
      end do
      write (*, '(a,4(1x,i0))') 'array reduction', r
      call say(t, n, c)
      p = pair(huge(1_8), -huge(1_8))
      !$omp parallel do schedule(static, c) reduction(pmax:p) num_threads(t)
      do i = 1, n
        p%lo = min(p%lo, int(mod(i * 17, 23), 8))
        p%hi = max(p%hi, int(mod(i * 17, 23), 8))
      end do
      write (*, '(a,2(1x,i0))') 'user reduction', p%lo, p%hi
      call say(t, n, 8)
      !$omp parallel do simd schedule(static, 8) num_threads(t)
      do i = 1, n
        acc(i) = acc(i) + 2 * i
      end do
      call total(n)
    end do
  end do
end program

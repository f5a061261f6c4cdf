!mod$ v1 sum:08b4e924815023fe
module formsmod
contains
subroutine modproc(a,n)
integer(4)::n
real(8)::a(1_8:int(n,kind=8))
end
end

module example.com/impl

go 1.22

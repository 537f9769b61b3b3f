module example.com/members

go 1.22

module docforge.test/oracle

go 1.26

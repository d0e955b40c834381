module github.com/doorman-oss/doorman/clients/go

go 1.23

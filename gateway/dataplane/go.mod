module lanterna/dataplane

go 1.26.8

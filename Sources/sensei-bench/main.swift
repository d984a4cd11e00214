SenseiBenchCommand.main()

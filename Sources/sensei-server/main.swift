import SenseiServer

SenseiServerCommand.main()

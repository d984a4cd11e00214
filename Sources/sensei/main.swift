import SenseiTUI

SenseiCommand.main()

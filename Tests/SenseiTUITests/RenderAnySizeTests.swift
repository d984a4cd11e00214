import Testing
import SenseiModels
@testable import SenseiTUI

/// Any model at any size renders without trapping: terminals get resized to
/// one row, and sensors have odd names.
@Suite struct RenderAnySizeTests {
    static var models: [AppModel] {
        var odd = Fixture.temperature
        odd.sensor.name = "Line\nbreak\t名前 😀 " + String(repeating: "long ", count: 30)
        odd.sensor.units = "µg/m³"
        var models = [Fixture.model(sensors: [odd, Fixture.humidity, Fixture.empty]), Fixture.model(sensors: []),
                      Fixture.detailModel(), Fixture.detailModel(summary: Fixture.door, charset: .ascii),
                      AppModel(width: 80, height: 24, now: Fixture.now, serverName: nil)]
        var help = Fixture.model()
        _ = help.update(.keyPressed(.character("?")))
        models.append(help)
        var cursor = Fixture.detailModel(range: .hour)
        _ = cursor.update(.keyPressed(.home))
        models.append(cursor)
        var loading = Fixture.model()
        _ = loading.update(.keyPressed(.enter))
        models.append(loading)
        return models
    }

    @Test(arguments: 0..<8)
    func everySizeFromNothingUp(index: Int) {
        let base = Self.models[index]
        for width in 0...30 {
            for height in 0...12 {
                var model = base
                _ = model.update(.resized(width: width, height: height))
                _ = model.update(.keyPressed(.left))
                _ = model.update(.keyPressed(.pageDown))
                let grid = AppView.render(model)
                #expect(grid.width == width && grid.height == height)
            }
        }
    }
}

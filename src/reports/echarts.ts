// Apache ECharts with the chart types, components and renderer that charts.ts draws with, registered once. Imported
// by charts.ts on its first chart only; named imports, so that a bundle (the Worker's) keeps only these parts.
import { init, use } from 'echarts/core';
import { BarChart, CustomChart, HeatmapChart, LineChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TitleComponent, VisualMapComponent } from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';

use([
  BarChart,
  CustomChart,
  HeatmapChart,
  LineChart,
  GridComponent,
  LegendComponent,
  TitleComponent,
  VisualMapComponent,
  SVGRenderer,
]);

export { init };

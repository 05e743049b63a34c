// Chinese words of everyday tool requests, with the English words (and the Chinese synonyms) tools
// use for them. Chinese queries are common among MCP users, and many tools with Chinese users have
// English names and descriptions (or describe themselves with other Chinese words: "周边搜" where a
// query says "附近"). Matched as substrings of the query, so no word segmentation is needed. General
// vocabulary of software, office, travel and maps; nothing here names a product.
import { isCjkChar, terms } from "./terms.ts"

/** [Chinese words a query may hold, what tools say]. */
const BILINGUAL: readonly (readonly [readonly string[], string])[] = [
  // Actions.
  [["查询", "查看", "看看", "查一下", "查", "获取", "显示"], "get search query list 查询 获取"],
  [["搜索", "搜", "找", "寻找", "检索"], "search find 搜索 检索"],
  [["创建", "新建", "添加", "新增", "加一个"], "create add 创建 新建"],
  [["删除", "删掉", "移除", "清除"], "delete remove 删除"],
  [["修改", "更新", "编辑", "改成"], "update edit 修改 更新"],
  [["发送", "发给", "通知", "告诉"], "send message notify 发送 消息"],
  [["回复"], "reply 回复"],
  [["上传"], "upload 上传"],
  [["下载"], "download 下载"],
  [["翻译"], "translate 翻译"],
  [["推荐", "吃什么"], "recommend 推荐"],
  [["统计", "数量", "多少", "总数"], "count stats 统计 数量 查询"],
  // Things of office and software.
  [["消息", "聊天", "群聊", "群里"], "message chat 消息"],
  [["文档", "文章"], "document doc 文档"],
  [["多维表格", "表格"], "table sheet bitable 表格"],
  [["字段", "列名"], "field column 字段 列"],
  [["记录"], "record row 记录"],
  [["任务", "待办"], "task todo 任务"],
  [["进度", "状态"], "status progress 状态"],
  [["用户", "成员"], "user member 用户"],
  [["日程", "日历", "会议"], "calendar event meeting 日程"],
  [["数据库", "表结构"], "database schema table 数据库"],
  [["订单"], "order 订单"],
  [["文件夹", "目录"], "folder directory 目录"],
  [["文件"], "file 文件"],
  [["代码"], "code 代码"],
  [["仓库"], "repository repo 仓库"],
  [["分支"], "branch 分支"],
  [["部署", "上线"], "deploy deployment 部署"],
  [["日志"], "log logs 日志"],
  [["报错", "错误", "异常"], "error exception 错误"],
  [["截图", "图片"], "screenshot image 图片"],
  [["网页", "网站", "链接"], "web page url 网页"],
  [["新闻"], "news 新闻"],
  [["图表"], "chart 图表"],
  [["权限"], "permission 权限"],
  // Travel, maps and weather.
  [["天气", "下雨", "气温"], "weather forecast 天气"],
  [["航班", "飞机", "机票", "起飞"], "flight 航班"],
  [["机场"], "airport 机场"],
  [["准点率", "准点", "延误"], "punctuality delay on time 准点"],
  [["价格", "票价", "多少钱"], "price fare 价格"],
  [["酒店", "住宿"], "hotel 酒店"],
  [["餐厅", "饭店", "美食"], "restaurant food 餐厅"],
  [["附近", "周边", "周围", "沿途"], "around nearby 周边"],
  [["怎么走", "怎么去", "路线", "导航", "路径"], "direction route 路线 路径 规划"],
  [["开车", "驾车", "自驾"], "driving 驾车"],
  [["公交", "地铁"], "transit 公交"],
  [["步行", "走路"], "walking 步行"],
  [["骑行", "骑车"], "bicycling 骑行"],
  [["距离", "多远"], "distance 距离"],
  [["地址", "在哪"], "address geocode location 地址"],
  [["坐标", "经纬度"], "coordinate geocode location 经纬度"],
  [["路况", "拥堵", "堵车"], "traffic 路况 拥堵"],
  [["菜谱", "做法", "怎么做", "食谱"], "recipe 菜谱"],
  // Time.
  [["今天", "明天", "昨天", "周末", "日期"], "date today 日期"],
]

/** Each entry's targets as terms, their single characters left out (weak alone, the bigrams carry them). */
const entries = BILINGUAL.map(([phrases, targets]) => ({
  phrases,
  targets: terms(targets).filter((term) => !isCjkChar(term)),
}))
const HAN = /\p{Script=Han}/u

/** The tool-side terms for the Chinese words a text holds (none when it has no Han character). */
export function bilingualTerms(text: string): Set<string> {
  const out = new Set<string>()
  if (!HAN.test(text)) return out
  for (const entry of entries)
    if (entry.phrases.some((phrase) => text.includes(phrase))) for (const term of entry.targets) out.add(term)
  return out
}
